"""rc_effective_reliability (and its portable query) over arbitrary working points against a
brute-force oracle that scans every point: the macros keep only the last point of each run of
equal accepted loss before multiplying by the costs, which must change no bit of the value,
the threshold or the coverage, ties to the lower plateau included (docs/metrics-extended.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riskcov.metrics import portable

COSTS = [0.0, 0.5, 1.0, 2.0, 4.0, 0.3]
# a block: (loss_scale, abstained units, [(items added, raw loss added), ...] in plateau order);
# losses 0 often, so runs of equal l_cum, and small integers, so gains tie exactly
blocks = st.tuples(
    st.sampled_from([1.0, 3.0]),
    st.integers(0, 3),
    st.lists(st.tuples(st.integers(1, 3), st.sampled_from([0.0, 0.0, 1.0, 2.0, 3.0])), max_size=12),
)


@pytest.fixture(scope="module")
def con(warehouse_template: Path) -> Any:
    c = duckdb.connect(str(warehouse_template), read_only=True)
    yield c
    c.close()


Rows = list[tuple[Any, ...]]


def rows_of(data: list[tuple[float, int, list[tuple[int, float]]]]) -> tuple[Rows, Rows]:
    """(points, totals) rows: block b is series b % 2, replicate b // 2; plateau p's threshold
    1 - p / 64 (plateaus numbered from 1, as rc_points does)."""
    points, totals = [], []
    for b, (scale, abstained, steps) in enumerate(data):
        series, replicate = b % 2, b // 2
        k_total = sum(k for k, _ in steps)
        n_total = k_total + abstained
        totals.append((series, replicate, n_total, k_total, scale))
        k_cum, l_cum = 0, 0.0
        for plateau, (k, loss) in enumerate(steps, start=1):
            k_cum, l_cum = k_cum + k, l_cum + loss
            threshold, coverage = 1 - plateau / 64, k_cum / n_total
            points.append((series, replicate, plateau, threshold, k_cum, l_cum, n_total, coverage))
    return points, totals


def brute_force(points: Rows, totals: Rows) -> Rows:
    """Every (block, cost): the point of the largest k_cum * loss_scale - (1 + c) * l_cum over
    all its points, ties to the lower plateau; accepting nothing unless its Phi_c is above 0."""
    out = []
    for series, replicate, n_total, _, scale in totals:
        mine = [p for p in points if p[:2] == (series, replicate)]
        for c in sorted(set(COSTS)):
            best = None
            for p in sorted(mine, key=lambda p: p[2]):  # plateau order: a later tie does not replace
                gain = p[4] * scale - (1 + c) * p[5]
                if best is None or gain > best[0]:
                    best = (gain, p)
            if best is not None and best[0] / (scale * n_total) > 0:
                out.append((series, replicate, c, best[0] / (scale * n_total), best[1][3], best[1][7]))
            else:
                out.append((series, replicate, c, 0.0, None, 0.0))
    return sorted(out, key=lambda r: r[:3])


@settings(max_examples=150, deadline=None)
@given(data=st.lists(blocks, min_size=1, max_size=6))
def test_the_candidates_give_the_best_point_of_all_points(con, data):
    points, totals = rows_of(data)
    cur = con.cursor()
    cur.execute(
        "CREATE TEMP TABLE points (series INTEGER, replicate INTEGER, plateau BIGINT, threshold DOUBLE, "
        "k_cum BIGINT, l_cum DOUBLE, n_total BIGINT, coverage DOUBLE)"
    )
    cur.execute(
        "CREATE TEMP TABLE totals (series INTEGER, replicate INTEGER, n_total BIGINT, k_total BIGINT, "
        "loss_scale DOUBLE)"
    )
    cur.execute("CREATE TEMP TABLE costs AS SELECT unnest(?) AS cost", [COSTS])
    if points:
        cur.executemany("INSERT INTO points VALUES (?, ?, ?, ?, ?, ?, ?, ?)", points)
    cur.executemany("INSERT INTO totals VALUES (?, ?, ?, ?, ?)", totals)
    want = brute_force(points, totals)
    macro = cur.execute(
        "SELECT series, replicate, cost, phi, threshold, coverage "
        "FROM rc_effective_reliability('points', 'totals', ?) ORDER BY series, replicate, cost",
        [COSTS],
    ).fetchall()
    tables = {"points": "points", "totals": "totals", "costs": "costs"}  # not the inlined queries
    sql = portable.render("effective_reliability", "duckdb", tables)
    query = cur.execute(
        f"SELECT series, replicate, cost, phi, threshold, coverage FROM ({sql}) AS q "
        "ORDER BY series, replicate, cost"
    ).fetchall()
    cur.close()
    assert macro == want  # bit for bit: the same IEEE operations on the same values
    assert query == want
