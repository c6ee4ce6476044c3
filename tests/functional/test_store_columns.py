"""The store's lean columns (formats/phq8_json/lean.py): a list-of-doubles signal handed to
DuckDB as one double column per position (and null masks) reads back as the Python lists
themselves would, bit for bit, nulls inside the lists and null lists included."""

from __future__ import annotations

from typing import Any

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

from riskcov.formats.phq8_json import lean as lean_columns
from riskcov.formats.phq8_json.columns import objects
from riskcov.warehouse.duckdb_helpers import registered

NAME = "consistency_samples"  # a list-of-doubles signal


def _read(columns: dict[str, Any], sql: str, params: list[Any]) -> list[Any]:
    con = duckdb.connect()
    with registered(con, "_rows", columns):
        return [r[0] for r in con.execute(f"SELECT {sql} FROM _rows", params).fetchall()]


def _bits(rows: list[Any]) -> list[Any]:
    return [None if r is None else [None if x is None else x.hex() for x in r] for r in rows]


_DOUBLE = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([0.0, -0.0, 5e-324, 2.0**60])


_ROWS = st.integers(1, 6).flatmap(
    lambda w: st.lists(
        st.none() | st.lists(st.none() | _DOUBLE, min_size=w, max_size=w), min_size=1, max_size=30
    )
)


@settings(max_examples=60, deadline=None)
@given(_ROWS)
def test_lists_of_doubles_and_nulls_read_back_as_the_lists(rows: list[Any]) -> None:
    values = objects(rows)
    lean = lean_columns._lean({NAME: values}, {})
    wide = any(r is not None for r in rows)  # else: no width to go by, the objects are kept
    assert (NAME in lean.columns) != wide
    assert _bits(_read(lean.columns, *lean.select[NAME])) == _bits(rows)
    assert _bits(_read({NAME: values}, f"CAST({NAME} AS DOUBLE[])", [])) == _bits(rows)


def test_the_masks_are_there_only_where_there_are_nulls() -> None:
    rows = [[0.5, None, 1.0], [0.25, 2.0, -0.0], None]
    lean = lean_columns._lean({NAME: objects(rows)}, {})
    assert sorted(lean.columns) == sorted(
        [f"{NAME}__0", f"{NAME}__1", f"{NAME}__1__null", f"{NAME}__2", f"{NAME}__null"]
    )
    assert _bits(_read(lean.columns, *lean.select[NAME])) == _bits(rows)


def test_lists_of_other_lengths_or_values_stay_objects() -> None:
    for rows in ([[0.5], [0.5, 1.0]], [[1, 2.0]], [[]], [["a"]]):
        lean = lean_columns._lean({NAME: objects(rows)}, {})
        assert list(lean.columns) == [NAME]
