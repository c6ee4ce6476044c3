"""The working-point macros of sql/ on a bare DuckDB connection, for tests of the SQL alone
(no warehouse): each file after the macros it calls."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import duckdb

from riskcov.resources import resource_dir
from rows_at_once import insert

RC_MACROS = (
    "rc_cells",
    "rc_plateaus",
    "rc_series",
    "rc_people",
    "rc_totals_weighted",
    "rc_totals_of",
    "rc_totals",
    "rc_point_columns",
    "rc_ordered_increments",
    "rc_running_exact",
    "rc_running_exact_packed",
    "rc_running",
    "rc_points",
    "rc_points_once",
    "rc_points_point_estimate",
)


def rc_macro_connection() -> duckdb.DuckDBPyConnection:
    """An in-memory connection with RC_MACROS created."""
    con = duckdb.connect()
    for name in RC_MACROS:
        con.execute((resource_dir("sql") / f"{name}.sql").read_text())
    return con


def rc_macro_fixture() -> Iterator[duckdb.DuckDBPyConnection]:
    """A module's connection of rc_macro_connection(), closed after its tests (wrap it in
    pytest.fixture)."""
    con = rc_macro_connection()
    yield con
    con.close()


def load_scored(con: duckdb.DuckDBPyConnection, rows: list[Any], samples: list[Any]) -> None:
    """Tables `scored` (series, population, participant_id, item_index, confidence, loss,
    loss_scale) and `samples` (replicate, participant_id, multiplicity) of these rows."""
    con.execute(
        "CREATE OR REPLACE TABLE scored (series INTEGER, population INTEGER, participant_id BIGINT, "
        "item_index INTEGER, confidence DOUBLE, loss DOUBLE, loss_scale DOUBLE)"
    )
    insert(con, "scored", rows)
    con.execute(
        "CREATE OR REPLACE TABLE samples (replicate INTEGER, participant_id BIGINT, multiplicity INTEGER)"
    )
    insert(con, "samples", samples)  # none when no participant is drawn at all: an empty table
