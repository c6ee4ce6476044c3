"""Small DuckDB helpers shared by the modules that query the warehouse."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import duckdb

if TYPE_CHECKING:  # numpy only for the annotation: `riskcov runs` need not import it
    import numpy as np


def one(result: duckdb.DuckDBPyConnection) -> tuple[Any, ...] | None:
    """The single row of a result, or None; the result is fetched to its end.

    DuckDB 2.0 refuses the next statement while a result is only partly fetched.

    >>> one(duckdb.connect().execute("SELECT 42"))
    (42,)
    """
    rows = result.fetchall()
    return rows[0] if rows else None


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection, *, own: bool = True) -> Iterator[None]:
    """BEGIN ... COMMIT, or ROLLBACK when anything (Ctrl-C included) escapes the block.

    `own=False` runs the block inside the caller's transaction (nothing is begun or ended).

    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE t (x INTEGER)")
    >>> try:
    ...     with transaction(con):
    ...         _ = con.execute("INSERT INTO t VALUES (1)")
    ...         raise KeyError("stop")
    ... except KeyError:
    ...     pass
    >>> one(con.execute("SELECT count(*) FROM t"))
    (0,)
    """
    if not own:
        yield
        return
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


@contextmanager
def one_thread(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """DuckDB's `threads` set to 1 for the block (an instance-wide setting), then restored; a
    no-op when it already is 1 (replicate chunks on several connections run so throughout).

    >>> con = duckdb.connect()
    >>> with one_thread(con):
    ...     one(con.execute("SELECT current_setting('threads')"))
    (1,)
    """
    setting = one(con.execute("SELECT current_setting('threads')"))
    threads = int(setting[0]) if setting else 1
    if threads == 1:
        yield
        return
    con.execute("SET threads = 1")
    try:
        yield
    finally:
        con.execute(f"SET threads = {threads}")


@contextmanager
def registered(con: duckdb.DuckDBPyConnection, name: str, columns: Any) -> Iterator[str]:
    """`columns` (a dict of numpy arrays, one per column) readable as the relation `name` for
    the block, unregistered after it (also when it fails).

    >>> import numpy as np
    >>> con = duckdb.connect()
    >>> with registered(con, "_xs", {"x": np.array([1, 2])}) as xs:
    ...     one(con.execute(f"SELECT sum(x) FROM {xs}"))
    (3,)
    """
    con.register(name, columns)
    try:
        yield name
    finally:
        con.unregister(name)


def temp_table(con: duckdb.DuckDBPyConnection, name: str, columns: Any, select: str = "*") -> None:
    """CREATE OR REPLACE TEMP TABLE `name` AS SELECT `select` FROM `columns` (a dict of numpy
    arrays, one scan), which are registered only for that statement.

    >>> import numpy as np
    >>> con = duckdb.connect()
    >>> temp_table(con, "t", {"x": np.array([3, 4])}, "x * 2 AS y")
    >>> con.execute("SELECT y FROM t ORDER BY y").fetchall()
    [(6,), (8,)]
    """
    with registered(con, f"_{name}_columns", columns) as source:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT {select} FROM {source}")


def single_threaded(
    con: duckdb.DuckDBPyConnection, query: str, params: list[Any]
) -> dict[str, np.ndarray[Any, Any]]:
    """Run an aggregate on one thread, so DOUBLE sums add in table order (bit-reproducible)."""
    with one_thread(con):
        return con.execute(query, params).fetchnumpy()
