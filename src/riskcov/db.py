"""Small DuckDB helpers shared by the modules that query the warehouse."""

from __future__ import annotations

from typing import Any

import duckdb


def one(result: duckdb.DuckDBPyConnection) -> tuple[Any, ...] | None:
    """The single row of a result, or None; the result is fetched to its end.

    DuckDB 2.0 refuses the next statement while a result is only partly fetched.

    >>> one(duckdb.connect().execute("SELECT 42"))
    (42,)
    """
    rows = result.fetchall()
    return rows[0] if rows else None
