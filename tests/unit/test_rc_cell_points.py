"""rc_cumulative_cells and rc_cell_points (the few-cluster path of metrics/cells.py): every working
point of every replicate equals an oracle's plateau sums exactly (integer losses), with the
predecessor values of the plateau before, and the chunked macros' points; the rows come out in
(replicate, series, plateau) order, and rows out of that order raise."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import duckdb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sql_support import rc_macro_connection

from riskcov.metrics import cells
from riskcov.resources import resource_dir
from rows_at_once import insert


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    c = rc_macro_connection()
    for name in ("rc_cumulative_cells", "rc_cell_points"):
        c.execute((resource_dir("sql") / f"{name}.sql").read_text())
    yield c
    c.close()


@st.composite
def scored_rows(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    """(series, population, participant_id, item_index, confidence, loss, loss_scale): series 0
    and 1 rank population 0's items (losses 0..3, scale 3), few distinct confidences so that
    plateaus are shared across and within participants; some abstentions."""
    rows = []
    for pid in range(draw(st.integers(1, 5))):
        for item in range(draw(st.integers(1, 5))):
            abstained = draw(st.integers(0, 5)) == 0
            loss = None if abstained else float(draw(st.integers(0, 3)))
            for s in (0, 1):
                conf = None if abstained else draw(st.sampled_from([0.1, 0.5, 0.9, 0.25]))
                rows.append((s, 0, 10 + pid, item, conf, loss, 3.0))
    return rows


def _oracle(rows: list[tuple[Any, ...]], weight: dict[int, int], series: int) -> list[tuple[Any, ...]]:
    """(plateau rank, k_cum, l_cum, l_prev, coverage, selective risk) of each point: the distinct
    confidences of the drawn predicted items, most confident first, weighted by `weight`."""
    mine = [r for r in rows if r[0] == series]
    n = sum(weight.get(r[2], 0) for r in mine)
    ranks = {
        c: i + 1 for i, c in enumerate(sorted({r[4] for r in mine}, key=lambda c: (c is None, -(c or 0))))
    }
    sums: dict[int, list[int]] = {}
    for _, _, pid, _, conf, loss, _ in mine:
        if loss is not None and weight.get(pid, 0):
            acc = sums.setdefault(ranks[conf], [0, 0])
            acc[0] += weight[pid]
            acc[1] += weight[pid] * int(loss)
    out, k_cum, l_cum = [], 0, 0
    for rank in sorted(sums):
        l_prev = l_cum
        k_cum, l_cum = k_cum + sums[rank][0], l_cum + sums[rank][1]
        out.append((rank, k_cum, float(l_cum), float(l_prev), k_cum / n, (l_cum / 3.0) / k_cum))
    return out


def _load(con: duckdb.DuckDBPyConnection, rows: list[tuple[Any, ...]], weights: list[dict[int, int]]) -> None:
    con.execute(
        "CREATE OR REPLACE TABLE scored (series INTEGER, population INTEGER, participant_id BIGINT, "
        "item_index INTEGER, confidence DOUBLE, loss DOUBLE, loss_scale DOUBLE)"
    )
    insert(con, "scored", rows)
    people = sorted({r[2] for r in rows})
    samples = [(rep, pid, w[pid]) for rep, w in enumerate(weights) for pid in people if w.get(pid, 0)]
    con.execute(
        "CREATE OR REPLACE TABLE samples (replicate INTEGER, participant_id BIGINT, multiplicity INTEGER)"
    )
    insert(con, "samples", samples)
    con.execute("CREATE OR REPLACE TABLE cells AS FROM rc_cells('scored')")
    con.execute("CREATE OR REPLACE TABLE series_info AS FROM rc_series('scored')")
    con.execute("CREATE OR REPLACE TABLE people AS FROM rc_people('scored')")
    con.execute("CREATE OR REPLACE TABLE totals AS FROM rc_totals('scored', 'samples')")
    con.execute(
        "CREATE OR REPLACE TABLE draw_order AS SELECT participant_id, "
        "row_number() OVER (ORDER BY participant_id) - 1 AS position "
        "FROM (SELECT DISTINCT participant_id FROM scored)"
    )
    con.execute(
        "CREATE OR REPLACE TABLE weights AS SELECT replicate, "
        "list(coalesce(multiplicity, 0)::DOUBLE ORDER BY position) AS m "
        "FROM (SELECT DISTINCT replicate FROM samples) CROSS JOIN draw_order "
        "LEFT JOIN samples USING (replicate, participant_id) GROUP BY replicate"
    )


def _points(con: duckdb.DuckDBPyConnection, bases: tuple[int, int]) -> list[tuple[Any, ...]]:
    con.execute(
        "CREATE OR REPLACE TABLE cumulative AS "
        "FROM rc_cumulative_cells('cells', 'draw_order', 'series_info', 'people', $k, $l)",
        {"k": float(bases[0]), "l": float(bases[1])},
    )
    return con.execute(
        "SELECT replicate, series, plateau, k_cum, l_cum, coverage, selective_risk, "
        "selective_risk_prev, k_total "
        "FROM rc_cell_points('cumulative', 'weights', $k, $l)",
        {"k": float(bases[0]), "l": float(bases[1])},
    ).fetchall()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scored_rows(), st.lists(st.lists(st.integers(0, 3), min_size=5, max_size=5), min_size=1, max_size=4))
def test_points_are_the_plateau_sums(con, rows, draws):
    people = sorted({r[2] for r in rows})
    weights = [dict.fromkeys(people, 1)] + [dict(zip(people, d, strict=False)) for d in draws]
    weights = [w for w in weights if any(w.values())]
    _load(con, rows, weights)
    bases = cells.bases(len(people) * 3, 5, 15)  # multiplicities up to 3 per participant
    assert bases is not None
    got = _points(con, bases)
    expected = []
    for rep, w in enumerate(weights):
        for s in (0, 1):
            points = _oracle(rows, w, s)
            k_total = points[-1][1] if points else 0
            for i, (rank, k_cum, l_cum, l_prev, coverage, risk) in enumerate(points):
                risk_prev = (l_prev / 3.0) / points[i - 1][1] if i else None
                expected.append((rep, s, rank, k_cum, l_cum, coverage, risk, risk_prev, k_total))
    assert got == expected  # in (replicate, series, plateau) order, every value exact


def test_the_same_points_as_the_chunked_macros(con):
    rng = np.random.default_rng(3)
    rows = []
    for pid in range(6):
        for item in range(8):
            loss = None if rng.random() < 0.2 else float(rng.integers(0, 4))
            conf = None if loss is None else float(rng.integers(0, 7)) / 6
            rows += [
                (s, 0, pid, item, conf if s == 0 else (None if conf is None else -conf), loss, 3.0)
                for s in (0, 1)
            ]
    weights = [dict.fromkeys(range(6), 1), {0: 3, 2: 2, 5: 1}, {1: 6}]
    _load(con, rows, weights)
    bases = cells.bases(6, 8, 24)
    assert bases is not None
    _points(con, bases)
    columns = (
        "series, replicate, plateau, threshold, k_cum, l_cum, n_total, coverage, selective_risk, "
        "generalized_risk, coverage_prev, selective_risk_prev, generalized_risk_prev, coverage_last"
    )
    mine = con.execute(
        f"SELECT {columns} FROM rc_cell_points('cumulative', 'weights', $k, $l) "
        "ORDER BY series, replicate, plateau",
        {"k": float(bases[0]), "l": float(bases[1])},
    ).fetchall()
    chunked = con.execute(
        f"WITH increments AS (FROM rc_plateaus('scored', 'cells', 'samples')) SELECT {columns} "
        "FROM rc_running_exact('increments', 'totals') ORDER BY series, replicate, plateau"
    ).fetchall()
    assert mine == chunked and len(mine) > 10


def test_rows_out_of_plateau_order_raise(con):
    rows = [(0, 0, 1, i, c, 1.0, 1.0) for i, c in enumerate([0.9, 0.5, 0.1])]
    _load(con, rows, [{1: 1}])
    _points(con, (4, 4))
    con.execute("UPDATE cumulative SET plateau = list_reverse(plateau)")  # lists no longer in plateau order
    with pytest.raises(duckdb.Error, match="rows out of plateau order"):
        con.execute("FROM rc_cell_points('cumulative', 'weights', 4.0, 4.0)").fetchall()


def test_a_replicate_drawing_no_one_of_a_population(con):
    """Two series of disjoint populations: a replicate that draws only the second one's
    participants has no block of the first, and the second's totals stay in place."""
    rows = [(0, 0, pid, i, c, float(i % 2), 1.0) for pid in (1, 2) for i, c in enumerate([0.9, 0.5])]
    rows += [(1, 1, pid, i, c, float(i % 3), 3.0) for pid in (3, 4) for i, c in enumerate([0.8, 0.2, 0.8])]
    _load(con, rows, [dict.fromkeys((1, 2, 3, 4), 1), {3: 2, 4: 2}])
    _points(con, (16, 32))
    columns = "series, replicate, plateau, k_cum, l_cum, n_total, coverage, selective_risk, coverage_prev"
    mine = con.execute(
        f"SELECT {columns} FROM rc_cell_points('cumulative', 'weights', 16.0, 32.0) "
        "ORDER BY series, replicate, plateau"
    ).fetchall()
    chunked = con.execute(
        f"WITH increments AS (FROM rc_plateaus('scored', 'cells', 'samples')) SELECT {columns} "
        "FROM rc_running_exact('increments', 'totals') ORDER BY series, replicate, plateau"
    ).fetchall()
    assert mine == chunked and {(s, r) for s, r, *_ in mine} == {(0, 0), (1, 0), (1, 1)}


@given(st.integers(1, 300_000), st.integers(0, 64), st.integers(0, 3 * 64))
def test_the_packing_holds_every_replicate_exactly(participants, max_items, max_loss):
    """Every field's largest weighted sum stays below its base, and the packed whole below
    2^53, or bases() declines (the chunked path then runs)."""
    fits = cells.bases(participants, max_items, max_loss)
    k_bits = (participants * max_items).bit_length()
    l_bits = (participants * max_loss).bit_length()
    if fits is None:
        assert 2 * (k_bits + l_bits) > 53
        return
    k_base, l_base = fits
    assert participants * max_items < k_base and participants * max_loss < l_base
    largest = (((participants * max_items) * l_base + participants * max_loss) * k_base) * l_base
    largest += (participants * max_items) * l_base + participants * max_loss
    assert largest < (k_base * l_base) ** 2 <= 2**53
