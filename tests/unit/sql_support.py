"""The working-point macros of sql/ on a bare DuckDB connection, for tests of the SQL alone
(no warehouse): each file after the macros it calls."""

from __future__ import annotations

import duckdb

from riskcov.resources import resource_dir

RC_MACROS = (
    "rc_cells",
    "rc_plateaus",
    "rc_series",
    "rc_people",
    "rc_totals_weighted",
    "rc_totals_of",
    "rc_totals",
    "rc_point_columns",
    "rc_running_exact",
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
