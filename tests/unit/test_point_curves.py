"""point_curves.read: replicate 0's points of eval_points as per-series column lists, read by
column. Held to the row-by-row reading it replaced (the oracle below) on random points, NULLs
and several series included, and to the item estimators' threshold mapping."""

from __future__ import annotations

from typing import Any

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

from riskcov.metrics.engine import CURVE_COLUMNS
from riskcov.metrics.point_curves import read

TYPES = {"plateau": "BIGINT", "k_cum": "BIGINT", "threshold": "DOUBLE"}


def _table(rows: list[tuple[Any, ...]]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    cols = ", ".join(f"{c} {TYPES.get(c, 'DOUBLE')}" for c in CURVE_COLUMNS)
    con.execute(f"CREATE TEMP TABLE eval_points (series INTEGER, replicate INTEGER, {cols})")
    if rows:
        marks = ", ".join("?" for _ in range(len(CURVE_COLUMNS) + 2))
        con.executemany(f"INSERT INTO eval_points VALUES ({marks})", rows)
    return con


Curves = dict[int, dict[str, list[Any]]]


def _oracle(rows: list[tuple[Any, ...]], confidence_of: dict[Any, float] | None) -> Curves:
    """The row loop: replicate 0's rows in (series, plateau) order, appended column by column."""
    out: Curves = {}
    for sid, _rep, *values in sorted((r for r in rows if r[1] == 0), key=lambda r: (r[0], r[2])):
        curve = out.setdefault(sid, {k: [] for k in CURVE_COLUMNS})
        for k, v in zip(CURVE_COLUMNS, values, strict=True):
            curve[k].append(v)
        if confidence_of is not None:
            curve["threshold"][-1] = confidence_of[(sid, values[-1])]
    return out


doubles = st.one_of(st.none(), st.floats(allow_nan=False, width=64))


@st.composite
def point_rows(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    rows = []
    for sid in draw(st.lists(st.integers(0, 5), unique=True, max_size=4)):
        for rep in draw(st.lists(st.integers(0, 2), unique=True, min_size=1, max_size=2)):
            plateaus = draw(st.lists(st.integers(1, 10**12), unique=True, max_size=6))
            for p in plateaus:
                k_cum = draw(st.integers(1, 2**40))
                values = [draw(doubles) for _ in range(4)]
                rows.append((sid, rep, p, k_cum, *values, float(draw(st.integers(0, 3)))))
    return rows


@settings(max_examples=60, deadline=None)
@given(point_rows())
def test_column_reading_equals_the_row_loop(rows: list[tuple[Any, ...]]) -> None:
    got = read(_table(rows), CURVE_COLUMNS, None)
    want = _oracle(rows, None)
    assert got == want
    for sid, curve in got.items():  # the same Python types as the rows gave
        for k in CURVE_COLUMNS:
            assert [type(v) for v in curve[k]] == [type(v) for v in want[sid][k]]


def test_item_thresholds_are_mapped_per_series() -> None:
    rows = [(1, 0, 2, 3, 0.5, 1.0, 0.5, 0.25, 7.0), (1, 0, 1, 1, 0.1, 0.0, 0.0, 0.0, 9.0)]
    rows += [(2, 0, 1, 2, 0.2, 0.5, 0.5, 0.1, 7.0), (2, 1, 1, 1, 0.2, 0.5, 0.5, 0.1, 8.0)]
    confidence_of = {(1, 7.0): 0.75, (1, 9.0): 0.95, (2, 7.0): 0.5}
    got = read(_table(rows), CURVE_COLUMNS, confidence_of)
    assert got == _oracle(rows, confidence_of)
    assert got[1]["threshold"] == [0.95, 0.75] and got[2]["threshold"] == [0.5]


def test_no_points_gives_no_curves() -> None:
    assert read(_table([]), CURVE_COLUMNS, None) == {}
