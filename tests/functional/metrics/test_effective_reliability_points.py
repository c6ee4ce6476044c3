"""rc_effective_reliability (and its portable query) over arbitrary working points against a
brute-force oracle that scans every point: the macros keep only the last point of each run of
equal accepted loss before multiplying by the costs, and the evaluation hands them only the
hull vertices of a 0/1-loss series, which must change no bit of the value, the threshold or
the coverage, ties to the lower plateau included (docs/metrics-extended.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rendered_once
from riskcov.metrics import cost_curves, interpolated
from rows_at_once import insert

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


def brute_force(points: Rows, totals: Rows, costs: list[float] = COSTS) -> Rows:
    """Every (block, cost): the point of the largest k_cum * loss_scale - (1 + c) * l_cum over
    all its points, ties to the lower plateau; accepting nothing unless its Phi_c is above 0."""
    out = []
    for series, replicate, n_total, _, scale in totals:
        mine = [p for p in points if p[:2] == (series, replicate)]
        for c in sorted(set(costs)):
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
    insert(cur, "points", points)
    insert(cur, "totals", totals)
    want = brute_force(points, totals)
    macro = cur.execute(
        "SELECT series, replicate, cost, phi, threshold, coverage "
        "FROM rc_effective_reliability('points', 'totals', ?) ORDER BY series, replicate, cost",
        [COSTS],
    ).fetchall()
    tables = {"points": "points", "totals": "totals", "costs": "costs"}  # not the inlined queries
    sql = rendered_once.render("effective_reliability", "duckdb", tables)
    query = cur.execute(
        f"SELECT series, replicate, cost, phi, threshold, coverage FROM ({sql}) AS q "
        "ORDER BY series, replicate, cost"
    ).fetchall()
    cur.close()
    assert macro == want  # bit for bit: the same IEEE operations on the same values
    assert query == want


# 0/1-loss blocks, as metrics.interpolated keeps their hull vertices: (loss_scale, abstained,
# [(items added, wrong ones among them)]); few items per plateau, so gains tie often
binary_blocks = st.tuples(
    st.sampled_from([1.0, 3.0, 0.5]),
    st.integers(0, 3),
    st.lists(st.integers(1, 3).flatmap(lambda k: st.tuples(st.just(k), st.integers(0, k))), max_size=12),
)


def _masked(values: Any) -> list[Any]:
    if np.ma.isMaskedArray(values):
        return [None if m else v for v, m in zip(values.data.tolist(), values.mask.tolist(), strict=True)]
    return list(values.tolist())


def _full_totals(points: Rows, totals: Rows) -> Rows:
    """rows_of's totals with the columns cost_curves' packing reads besides: l_total (the
    block's last l_cum) and exact (every l_cum of the block an integer)."""
    out = []
    for t in totals:
        mine = sorted((p for p in points if p[:2] == t[:2]), key=lambda p: p[2])
        out.append((*t, mine[-1][5] if mine else 0.0, all(p[5] == int(p[5]) for p in mine)))
    return out


def _totals_and_losses(cur: Any, points: Rows, totals: Rows, name: str) -> None:
    """TEMP TABLE `name` of _full_totals, and eval_losses: every point's raw loss increment (the
    step losses, all >= 0 here)."""
    cur.execute(
        f"CREATE TEMP TABLE {name} (series INTEGER, replicate INTEGER, n_total BIGINT, k_total BIGINT, "
        "loss_scale DOUBLE, l_total DOUBLE, exact BOOLEAN)"
    )
    insert(cur, name, _full_totals(points, totals))
    blocks: dict[tuple[Any, ...], list[float]] = {}
    for p in sorted(points, key=lambda p: p[:3]):
        blocks.setdefault(p[:2], []).append(p[5])
    losses = [(b - a,) for cums in blocks.values() for a, b in zip([0.0, *cums], cums, strict=False)]
    cur.execute("CREATE OR REPLACE TEMP TABLE eval_losses (loss DOUBLE)")
    insert(cur, "eval_losses", losses)


def _chunk(con: Any, points: Rows, totals: Rows) -> Any:
    """A cursor holding a chunk's eval_points, eval_totals and eval_losses (the columns
    cost_curves reads)."""
    cur = con.cursor()
    cur.execute(
        "CREATE TEMP TABLE eval_points (series INTEGER, replicate INTEGER, plateau BIGINT, threshold DOUBLE, "
        "k_cum BIGINT, l_cum DOUBLE, n_total BIGINT, coverage DOUBLE)"
    )
    insert(cur, "eval_points", points)
    _totals_and_losses(cur, points, totals, "eval_totals")
    return cur


def _rows(out: dict[str, Any]) -> Rows:
    """cost_curves.best_points' columns as brute_force's sorted rows, NULLs as None."""
    columns = (_masked(out[k]) for k in ("series", "replicate", "cost", "phi", "threshold", "coverage"))
    return sorted(zip(*columns, strict=True), key=lambda r: r[:3])


@settings(max_examples=150, deadline=None)
@given(data=st.lists(binary_blocks, min_size=1, max_size=6), inexact=st.booleans())
def test_the_hull_vertices_of_a_binary_series_give_the_best_point_of_all_points(con, data, inexact):
    """Through the evaluation's own path: metrics.interpolated keeps each 0/1-loss block's hull
    vertices, metrics.cost_curves hands only those to the macro where every gain is exact (a
    cost of 0.3 is not, and every point is used), and the rows are the brute force's over
    every point, bit for bit."""
    costs = [*COSTS[:5], 0.3] if inexact else COSTS[:5]
    points, totals = rows_of([(s, a, [(k, w * s) for k, w in steps]) for s, a, steps in data])
    cur = _chunk(con, points, totals)
    cur.execute("ALTER TABLE eval_points ADD COLUMN generalized_risk DOUBLE")
    cur.execute(
        "UPDATE eval_points AS p SET generalized_risk = p.l_cum / t.loss_scale / p.n_total "
        "FROM eval_totals AS t WHERE t.series = p.series AND t.replicate = p.replicate"
    )
    interpolated.compute(cur, [0, 1], "plateau-trapezoid")
    kept = cur.execute("SELECT count(*) FROM eval_vertices").fetchone()
    out = cost_curves.best_points(cur, costs)
    cur.close()
    got = _rows(out)
    assert kept is not None and kept[0] <= len(points)
    assert got == brute_force(points, totals, costs)


@settings(max_examples=150, deadline=None)
@given(data=st.lists(blocks, min_size=1, max_size=6), inexact=st.booleans())
def test_the_packed_key_gives_the_best_point_of_all_points(con, data, inexact):
    """Through the evaluation's own path on integer losses (PHQ-8's, every point kept):
    metrics.cost_curves hands the macro a unit and k_base where every gain is exact, so each
    cost's best is the max of one exact double key instead of a struct (a cost of 0.3 is not
    exact, and the struct max stays); the rows are the brute force's, bit for bit."""
    costs = COSTS if inexact else COSTS[:5]
    points, totals = rows_of(data)
    cur = _chunk(con, points, totals)
    cur.execute("CREATE TEMP VIEW eval_points_phi AS FROM eval_points")
    cur.execute("CREATE TEMP VIEW eval_totals_phi AS FROM eval_totals")
    packing = cost_curves._packing(cur, costs)
    cur.execute("DROP VIEW eval_points_phi")
    cur.execute("DROP VIEW eval_totals_phi")
    out = cost_curves.best_points(cur, costs)
    cur.close()
    got = _rows(out)
    # the packed key is what ran (without points, whatever unit: it ranks nothing)
    assert (packing is None) == (inexact and bool(points))
    assert got == brute_force(points, totals, costs)


def test_the_packed_key_orders_equal_gains_by_fewer_units(con):
    """Two points of equal gain at cost 0.5 (3 * 3 - 1.5 * 2 = 6 = 3 * 2 - 1.5 * 0): the one of
    fewer accepted units wins under the packed key as under the struct."""
    cur = con.cursor()
    cur.execute(
        "CREATE TEMP TABLE p AS SELECT * FROM (VALUES (0, 0, 1, 0.9::DOUBLE, 2, 0.0::DOUBLE, 4), "
        "(0, 0, 2, 0.8, 3, 2.0, 4)) AS v(series, replicate, plateau, threshold, k_cum, l_cum, n_total)"
    )
    cur.execute("CREATE TEMP TABLE t AS SELECT 0 AS series, 0 AS replicate, 4 AS n_total, 3.0 AS loss_scale")
    sql = "SELECT phi, threshold, coverage FROM rc_effective_reliability('p', 't', [0.5]{})"
    packed = cur.execute(sql.format(", unit := 0.5, k_base := 4.0")).fetchall()
    struct = cur.execute(sql.format("")).fetchall()
    cur.close()
    assert packed == struct == [(6 / 12, 0.9, 2 / 4)]


@settings(max_examples=150, deadline=None)
@given(data=st.lists(blocks, min_size=1, max_size=6), order=st.randoms(use_true_random=False))
def test_the_packed_key_needs_no_order_of_the_points(con, data, order):
    """Under the packed key the macro keeps a point unless the next row is of its block and
    accepted loss with more units, which is the GROUP BY's candidates in the stored order; in
    any other order (the rows shuffled) it keeps more points,
    never fewer of the ones that can win: the rows stay the brute force's, bit for bit."""
    points, totals = rows_of(data)
    order.shuffle(points)
    cur = _chunk(con, points, totals)
    sql = "SELECT series, replicate, cost, phi, threshold, coverage FROM rc_effective_reliability("
    sql += "'eval_points', 'eval_totals', ?, unit := 0.5, k_base := 64.0)"  # every gain a multiple of 1/2
    got = sorted(cur.execute(sql, [COSTS[:5]]).fetchall(), key=lambda r: r[:3])
    cur.close()
    assert got == brute_force(points, totals, COSTS[:5])


# the chord test (packed key only) is exact below 2^25 units: blocks whose counts cross it,
# with runs of equal loss per unit (collinear points), one-point blocks and equal gains, under
# the unit and k_base cost_curves gives them, against brute force
BOUND = 2**25
INTEGER_COSTS = [0.0, 1.0, 2.0, 4.0]
edge_blocks = st.tuples(
    st.just(1.0),
    st.sampled_from([0, 1]),
    st.sampled_from([BOUND - 4, BOUND - 2, BOUND - 1, BOUND, BOUND + 1]).flatmap(
        lambda first: st.tuples(st.just(first), st.sampled_from([0.0, 1.0, 2.0]))
    ),
    st.lists(st.tuples(st.integers(1, 2), st.sampled_from([0.0, 1.0, 2.0])), max_size=8),
)


@settings(max_examples=150, deadline=None)
@given(data=st.lists(edge_blocks, min_size=1, max_size=4), shuffled=st.randoms(use_true_random=False))
def test_the_candidates_across_the_chord_tests_bound(con, data, shuffled):
    blocks = [(scale, ab, [first, *steps]) for scale, ab, first, steps in data]
    points, totals = rows_of(blocks)
    cur = con.cursor()
    try:
        cur.execute(
            "CREATE TEMP TABLE eval_points_phi (series INTEGER, replicate INTEGER, plateau BIGINT, "
            "threshold DOUBLE, k_cum BIGINT, l_cum DOUBLE, n_total BIGINT, coverage DOUBLE)"
        )
        insert(cur, "eval_points_phi", points)
        _totals_and_losses(cur, points, totals, "eval_totals_phi")
        packing = cost_curves._packing(cur, INTEGER_COSTS)
        assert packing is not None  # the packed key, hence the chord test
        query = (
            "SELECT series, replicate, cost, phi, threshold, coverage FROM rc_effective_reliability("
            "'eval_points_phi', 'eval_totals_phi', ?, unit := ?, k_base := ?) "
            "ORDER BY series, replicate, cost"
        )
        stored = cur.execute(query, [INTEGER_COSTS, *packing]).fetchall()
        shuffled.shuffle(points)  # any row order gives the same rows
        cur.execute("DELETE FROM eval_points_phi")
        insert(cur, "eval_points_phi", points)
        any_order = cur.execute(query, [INTEGER_COSTS, *packing]).fetchall()
    finally:
        cur.close()
    want = brute_force(points, totals, INTEGER_COSTS)
    assert stored == want
    assert any_order == want
