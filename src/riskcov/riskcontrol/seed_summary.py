"""Summaries over seeds of docs/risk-control.md: each seed's test outcome under a rule, the
violation rate of a (method, alpha, rule) group, and the population mean and standard
deviation every risk-control table reports.

>>> mean_std([1.0, 3.0])
(2.0, 1.0)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from riskcov.errors import InputError, UsageError
from riskcov.riskcontrol.bounds import check_level


class SeedOutcome(NamedTuple):
    """One seed's test row of a (method, alpha, rule) group."""

    seed: int
    coverage: float
    risk: float
    generalized_risk: float


def mean_std(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and population standard deviation (ddof 0); (None, None) for no values.

    >>> mean_std([1.0, 3.0])
    (2.0, 1.0)
    """
    if not values:
        return None, None
    arr = np.asarray(values, dtype=np.float64)
    return float(arr.mean()), float(arr.std(ddof=0))


def violation_summary(
    rows: Sequence[SeedOutcome], alpha: float, rule: str, margin: float | None = None
) -> dict[str, Any]:
    """Violation rate of one (method, alpha, rule) group over its seeds, with a row per seed.

    A seed violates when its test risk > alpha; for rule `crc` the generalized risk is the one
    compared (docs/risk-control.md). With a margin m, `num_violations_margin` counts risk > alpha·(1 + m).
    Means and standard deviations are population ones (ddof 0); None without seeds.

    >>> s = violation_summary([SeedOutcome(1, 0.5, 0.2, 0.1), SeedOutcome(2, 0.7, 0.1, 0.07)],
    ...                       0.15, "uncertified", 0.5)
    >>> s["violation_rate"], s["num_violations_margin"], s["mean_risk"]
    (0.5, 0, 0.15000000000000002)
    """
    check_level("alpha", alpha)
    if margin is not None and not margin >= 0:
        raise UsageError(f"--violation-margin must be >= 0, got {margin!r}")
    ordered = sorted(rows, key=lambda r: r.seed)
    for a, b in itertools.pairwise(ordered):
        if a.seed == b.seed:
            raise InputError(f"seed {a.seed} appears twice in one (method, alpha, {rule}) group")
    details: list[dict[str, Any]] = []
    for r in ordered:
        judged = r.generalized_risk if rule == "crc" else r.risk
        details.append(
            {
                "seed": r.seed,
                "alpha": alpha,
                "risk": r.risk,
                "coverage": r.coverage,
                "generalized_risk": r.generalized_risk,
                "violated": judged > alpha,
                "violated_margin": None if margin is None else judged > alpha * (1 + margin),
            }
        )
    n = len(details)
    violations = sum(bool(d["violated"]) for d in details)
    over_margin = None if margin is None else sum(bool(d["violated_margin"]) for d in details)
    mean_risk, std_risk = mean_std([r.risk for r in ordered])
    mean_cov, std_cov = mean_std([r.coverage for r in ordered])
    mean_gen, std_gen = mean_std([r.generalized_risk for r in ordered])
    return {
        "alpha": alpha,
        "rule": rule,
        "num_seeds": n,
        "num_violations": violations,
        "violation_rate": violations / n if n else None,
        "margin": margin,
        "num_violations_margin": over_margin,
        "violation_rate_margin": over_margin / n if n and over_margin is not None else None,
        "mean_risk": mean_risk,
        "std_risk": std_risk,
        "mean_coverage": mean_cov,
        "std_coverage": std_cov,
        "mean_generalized_risk": mean_gen,
        "std_generalized_risk": std_gen,
        "seeds": [r.seed for r in ordered],
        "details": details,
    }
