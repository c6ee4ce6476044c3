"""rc_running_stream (the "sort once" path's running sums, sql/rc_running_stream.sql): its
working points equal an oracle's plateau sums exactly, and rows out of plateau order raise
(the guard of its reliance on the scan order). rc_running_stream_packed (one packed running
sum) gives the same points bit for bit wherever stream_plan.packing_unit grants a unit."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sql_support import rc_macro_connection

from riskcov.metrics.stream_plan import packing_unit
from riskcov.resources import resource_dir


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    c = rc_macro_connection()
    for name in ("rc_stream_points", "rc_running_stream", "rc_running_stream_packed"):
        c.execute((resource_dir("sql") / f"{name}.sql").read_text())
    yield c
    c.close()


def _load(con: duckdb.DuckDBPyConnection, cells: list[tuple[int, int, int]]) -> None:
    """Weighted cells (plateau, k, l) of series 3, replicate 5, stored in the given order."""
    con.execute(
        "CREATE OR REPLACE TABLE cells (series INTEGER, replicate INTEGER, plateau BIGINT, "
        "threshold DOUBLE, k DOUBLE, l DOUBLE)"
    )
    con.executemany(
        "INSERT INTO cells VALUES (3, 5, ?, ?, ?, ?)", [(p, 1.0 / p, k, loss) for p, k, loss in cells]
    )


def _oracle(cells: list[tuple[int, int, int]], n: int, scale: int) -> list[tuple[Any, ...]]:
    """(plateau, k_cum, l_cum, coverage, selective risk, coverage and risk of the point before)
    per plateau, most confident first; a point's predecessor is the plateau before it."""
    sums: dict[int, list[int]] = {}
    for p, k, loss in cells:
        acc = sums.setdefault(p, [0, 0])
        acc[0], acc[1] = acc[0] + k, acc[1] + loss
    out, k_cum, l_cum = [], 0, 0
    for p in sorted(sums):
        k_prev, l_prev = k_cum, l_cum
        k_cum, l_cum = k_cum + sums[p][0], l_cum + sums[p][1]
        before = (k_prev / n, (l_prev / scale) / k_prev) if k_prev else (None, None)
        out.append((p, k_cum, float(l_cum), k_cum / n, (l_cum / scale) / k_cum, *before))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.tuples(st.integers(1, 12), st.integers(1, 4), st.integers(0, 9)), min_size=1, max_size=40),
    st.sampled_from([1, 3]),
)
def test_points_are_the_plateau_sums(con, raw, scale):
    cells = sorted(raw, key=lambda c: c[0])  # plateau order; a plateau may hold several cells
    n = sum(k for _, k, _ in cells) + 2  # two items abstained
    _load(con, cells)
    got = con.execute(
        "SELECT plateau, k_cum, l_cum, coverage, selective_risk, coverage_prev, selective_risk_prev "
        "FROM rc_running_stream('cells', CAST(? AS BIGINT), CAST(? AS BIGINT), ?)",
        [n, n - 2, scale],
    ).fetchall()
    assert got == _oracle(cells, n, scale)


@pytest.mark.parametrize(
    "macro", ["rc_running_stream('cells', 10, 4, 1)", "rc_running_stream_packed('cells', 10, 4, 1, 8.0)"]
)
def test_cells_out_of_plateau_order_raise(con, macro):
    _load(con, [(1, 1, 0), (3, 2, 1), (2, 1, 1)])
    with pytest.raises(duckdb.Error, match="cells out of plateau order"):
        con.execute(f"SELECT * FROM {macro}").fetchall()


def _bits(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Rows with every double as its exact bits (float.hex tells -0.0 from 0.0)."""
    return [tuple(v.hex() if isinstance(v, float) else v for v in row) for row in rows]


# (plateau, multiplicity, predicted items, raw loss sum) of a stored cell: the loss an integer
# >= 0, items and multiplicities from small to large enough that the unit nears 2^53
CELLS = st.lists(
    st.tuples(
        st.integers(1, 9),
        st.integers(1, 3),
        st.one_of(st.integers(1, 3), st.integers(2**20, 2**24)),
        st.one_of(st.integers(0, 2), st.integers(0, 2**12)),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(CELLS, st.sampled_from([1.0, 3.0]))
def test_packed_stream_is_the_two_sums_bit_for_bit(con, raw, scale):
    cells = sorted(raw, key=lambda c: c[0])
    _load(con, [(p, w * items, w * loss) for p, w, items, loss in cells])
    k_total = sum(w * items for _, w, items, _ in cells)
    unit = packing_unit(k_total, float(max(loss for *_, loss in cells)))
    largest = sum(w * loss for _, w, _, loss in cells)  # the block's l_cum at its last point
    if unit is None:  # the bound would pass 2^53: the two sums (the evaluation's fallback)
        return
    assert largest < unit and (k_total + 1) * unit <= 2**53
    args = [k_total + 5, k_total, scale]
    two = con.execute(
        "SELECT * FROM rc_running_stream('cells', CAST(? AS BIGINT), CAST(? AS BIGINT), ?)", args
    ).fetchall()
    packed = con.execute(
        "SELECT * FROM rc_running_stream_packed('cells', CAST(? AS BIGINT), CAST(? AS BIGINT), ?, "
        "CAST(? AS DOUBLE))",
        [*args, unit],
    ).fetchall()
    assert len(packed) == len({c[0] for c in cells}) and _bits(packed) == _bits(two)


def test_a_unit_too_small_for_the_losses_gives_other_points(con):
    """The bound matters: with a unit at or below the loss total the packed sums carry into
    k_cum (what packing_unit never grants)."""
    _load(con, [(1, 1, 3), (2, 1, 2)])
    rows = con.execute("SELECT k_cum, l_cum FROM rc_running_stream_packed('cells', 9, 2, 1, 4.0)").fetchall()
    assert rows != [(1, 3.0), (2, 5.0)] and packing_unit(2, 3.0) == 8
