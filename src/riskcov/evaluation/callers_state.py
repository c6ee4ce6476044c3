"""An evaluation leaves its caller's connection as it found it (docs/python.md): the TEMP
tables and views it makes on the caller's own connection are dropped before COMMIT, and the
instance-wide `preserve_insertion_order`, which the streamed replicates pin, is set back.
The CLI's process ends after one command; a `with riskcov.Warehouse(...)` block goes on."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import duckdb

from riskcov.warehouse.duckdb_helpers import one

_TEMPS = (
    "SELECT 'TABLE', table_name FROM duckdb_tables() WHERE temporary UNION ALL "
    "SELECT 'VIEW', view_name FROM duckdb_views() WHERE temporary AND NOT internal"
)


@contextmanager
def insertion_order_kept(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """`preserve_insertion_order` as it was before the block, also after an error.

    >>> con = duckdb.connect()
    >>> _ = con.execute("SET preserve_insertion_order = false")
    >>> with insertion_order_kept(con):
    ...     _ = con.execute("SET preserve_insertion_order = true")
    >>> con.execute("SELECT current_setting('preserve_insertion_order')").fetchall()
    [(False,)]
    """
    kept = one(con.execute("SELECT current_setting('preserve_insertion_order')"))
    try:
        yield
    finally:
        if kept is not None:
            con.execute(f"SET preserve_insertion_order = {'true' if kept[0] else 'false'}")


def temps(con: duckdb.DuckDBPyConnection) -> set[tuple[str, str]]:
    """The connection's TEMP tables and views, as (kind, name)."""
    return {(kind, name) for kind, name in con.execute(_TEMPS).fetchall()}


def drop_new_temps(con: duckdb.DuckDBPyConnection, before: set[tuple[str, str]]) -> None:
    """Drop the TEMP tables and views made since `before` was taken (views first: they may
    read the tables)."""
    made = sorted(temps(con) - before, key=lambda t: (t[0] != "VIEW", t[1]))
    for kind, name in made:
        con.execute(f'DROP {kind} IF EXISTS temp.main."{name}"')
