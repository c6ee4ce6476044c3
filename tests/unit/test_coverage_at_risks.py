"""rc_coverage_at_risks (docs/metrics.md Coverage@Risk) straight on the macro: for every block
(series, replicate) and every distinct alpha of an unsorted list with repeats, the point of the
largest plateau whose selective risk <= alpha, or NULLs when none qualifies; one row per block
and alpha. Risks of -infinity and NULL, NULL coverages and thresholds included (BI users call
the macro on their own points). The oracle scans each block's points in Python."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from riskcov.resources import resource_dir
from rows_at_once import insert

# risks drawn from a few values and the alphas themselves, so ties with an alpha are common
RISKS = st.sampled_from(
    [0.0, 0.05, 0.1, 0.1 + 1e-12, 0.2, 0.3, 1.0, 2.0, -math.inf, math.inf, None]
) | st.floats(0.0, 3.0)
ALPHAS = st.lists(
    st.sampled_from([0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 1.0, -math.inf, math.inf]) | st.floats(0.0, 3.0),
    min_size=1,
    max_size=7,
)


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    c = duckdb.connect()
    for name in ("rc_coverage_at_risks", "rc_coverage_at_risk"):
        c.execute((resource_dir("sql") / f"{name}.sql").read_text())
    yield c
    c.close()


@st.composite
def blocks(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    """Points (series, replicate, plateau, threshold, coverage, selective_risk) of 1-4 blocks,
    plateaus increasing with coverage, risks in any order; some coverages and thresholds NULL."""
    rows = []
    for series in range(draw(st.integers(1, 2))):
        for replicate in range(draw(st.integers(1, 2))):
            risks = draw(st.lists(RISKS, min_size=1, max_size=12))
            for plateau, risk in enumerate(risks, start=1):
                coverage, threshold = plateau / len(risks), 1.0 - plateau / 16
                if draw(st.booleans()) and draw(st.booleans()):
                    coverage, threshold = None, None
                rows.append((series, replicate, plateau, threshold, coverage, risk))
    return rows


def oracle(rows: list[tuple[Any, ...]], alphas: list[float]) -> list[tuple[Any, ...]]:
    out = []
    for block in sorted({r[:2] for r in rows}):
        points = sorted((r for r in rows if r[:2] == block), key=lambda r: r[2])
        for alpha in sorted(set(alphas)):
            ok = [p for p in points if p[5] is not None and p[5] <= alpha]
            out.append((*block, alpha, *((ok[-1][4], ok[-1][5], ok[-1][3]) if ok else (None, None, None))))
    return out


@settings(max_examples=examples(150), deadline=None)
@given(rows=blocks(), alphas=ALPHAS, order=st.none() | st.randoms(use_true_random=False))
def test_each_alpha_gets_the_last_point_within_it(con, rows, alphas, order):
    """In plateau order (as `evaluate` stores points) or shuffled: the macro drops a point whose
    next row is of its block, later and no riskier, which must not depend on the order."""
    if order is not None:
        order.shuffle(rows)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _pts (series INTEGER, replicate INTEGER, plateau BIGINT, "
        "threshold DOUBLE, coverage DOUBLE, selective_risk DOUBLE)"
    )
    insert(con, "_pts", rows)
    got = con.execute(
        "FROM rc_coverage_at_risks('_pts', ?) ORDER BY series, replicate, alpha", [alphas]
    ).fetchall()
    assert got == oracle(rows, alphas)
    one = con.execute(
        "FROM rc_coverage_at_risk('_pts', ?) ORDER BY series, replicate", [alphas[0]]
    ).fetchall()
    assert one == oracle(rows, alphas[:1])
