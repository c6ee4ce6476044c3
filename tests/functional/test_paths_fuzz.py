"""Odd but valid per-sample data through the Python API: the three replicate paths (chunked,
cumulative cells, streamed; docs/performance.md, the shape rule) give one artifact bit for bit,
forced on data far smaller than they are chosen for; and the point AURC and AUGRC are those of
a plain computation in fractions (docs/metrics.md: plateaus by exact equality, so -0.0 and
0.0 share one; subnormal, huge and negative confidences; abstentions; losses from 0/1 to 2^40
and fractions)."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riskcov
from hypothesis_profiles import examples
from riskcov.metrics import cells, stream_plan

ODD = [-0.0, 0.0, 5e-324, -5e-324, 1e-320, 1e308, -1.7976931348623157e308, 0.5, 1.0, 0.1 + 0.2, 0.3]
CONFIDENCE = st.sampled_from(ODD) | st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: x + 0.0)
LOSSES = {
    "binary": st.sampled_from([0.0, 1.0]),
    "phq8": st.integers(0, 24).map(float),
    "large": st.sampled_from([0.0, 1.0, float(2**40), float(2**40 + 3)]),
    "fractional": st.sampled_from([0.0, 0.25, 0.1, 1 / 3, 2.5]),
}
PATHS = {"chunked": (10**12, 0), "cells": (10**12, 10**9), "stream": (0, 0)}  # (stream cells, products)


@st.composite
def samples(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 24))
    loss = LOSSES[draw(st.sampled_from(sorted(LOSSES)))]
    abstained = [draw(st.integers(0, 5)) == 0 for _ in range(n)]
    abstained[0] = False  # at least one accepted sample
    return {
        "sample_id": np.arange(n),
        "cluster": np.array([draw(st.integers(0, 5)) for _ in range(n)]),
        "confidence": np.array([draw(CONFIDENCE) for _ in range(n)]),
        "loss": np.array([draw(loss) for _ in range(n)]),
        "abstained": np.array(abstained),
    }


def working_points(data: dict[str, Any]) -> list[tuple[Fraction, Fraction, Fraction, float]]:
    """(coverage, selective risk, generalized risk, threshold) in fractions: a working point per
    distinct confidence, most confident first."""
    n = len(data["confidence"])
    kept = [
        (float(c), Fraction(float(x)))
        for c, x, a in zip(data["confidence"], data["loss"], data["abstained"], strict=True)
        if not a
    ]
    points = []
    for value in sorted({c for c, _ in kept}, reverse=True):
        accepted = [x for c, x in kept if c >= value]
        total = sum(accepted, Fraction(0))
        points.append((Fraction(len(accepted), n), total / len(accepted), total / n, value))
    return points


def areas(points: list[tuple[Fraction, Fraction, Fraction, float]]) -> tuple[float, float]:
    """AURC and AUGRC: the trapezoids from (0, the first risk) and from (0, 0)."""
    aurc = augrc = Fraction(0)
    before = (Fraction(0), points[0][1], Fraction(0), 0.0)
    for point in points:
        aurc += (point[0] - before[0]) * (before[1] + point[1]) / 2
        augrc += (point[0] - before[0]) * (before[2] + point[2]) / 2
        before = point
    return float(aurc), float(augrc)


@settings(max_examples=examples(4), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=samples(), resamples=st.sampled_from([0, 6]), seed=st.integers(0, 2**31 - 1))
def test_the_three_paths_agree_and_the_areas_are_the_oracles(data, resamples, seed):
    artifacts = {}
    with pytest.MonkeyPatch.context() as mp:
        for path, (stream_cells, products) in PATHS.items():
            mp.setattr(stream_plan, "STREAM_MIN_CELLS", stream_cells)
            mp.setattr(cells, "MAX_PRODUCTS_PER_CELL", products)
            art = riskcov.evaluate(data, resamples=resamples, seed=seed, confidence="confidence").artifact
            art.pop("created_at")
            artifacts[path] = json.dumps(art, sort_keys=True)
    assert artifacts["cells"] == artifacts["chunked"]
    assert artifacts["stream"] == artifacts["chunked"]
    variant = json.loads(artifacts["chunked"])["confidence_variants"]["confidence"]
    points = working_points(data)
    aurc, augrc = areas(points)
    assert math.isclose(variant["aurc_full"], aurc, rel_tol=1e-12, abs_tol=1e-300)
    assert math.isclose(variant["augrc_full"], augrc, rel_tol=1e-12, abs_tol=1e-300)
    if all(float(x).is_integer() for x in data["loss"]):  # the risks exact, so the budgets' choices
        for budget in variant["coverage_at_risk"].values():
            within = [p for p in points if float(p[1]) <= budget["alpha"]]  # as SQL: L / k in a double
            best = max(within, key=lambda p: p[0], default=None)
            expected = (0.0, None) if best is None else (float(best[0]), best[3])
            assert (budget["coverage"], budget.get("threshold")) == expected, budget
