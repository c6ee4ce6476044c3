"""Small DuckDB helpers shared by the modules that query the warehouse."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import duckdb

from riskcov.errors import RiskcovError
from riskcov.warehouse.committed import STORED, sigint_deferred

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


@dataclass
class Transaction:
    """What a `transaction` block may leave for its COMMIT: a name for what it stores (said by
    a later Ctrl-C's message) and steps that must follow COMMIT at once (renaming a staged
    artifact into place); both run with Ctrl-C held back until they are done."""

    stored: str | None = None
    after_commit: list[Callable[[], None]] = field(default_factory=list)
    on_rollback: list[Callable[[], None]] = field(default_factory=list)

    def then(self, finish: Callable[[], None], discard: Callable[[], None]) -> None:
        """`finish` right after COMMIT, `discard` on ROLLBACK (a staged file's two ends)."""
        self.after_commit.append(finish)
        self.on_rollback.append(discard)


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection, *, own: bool = True) -> Iterator[Transaction]:
    """BEGIN ... COMMIT, or ROLLBACK when anything (Ctrl-C included) escapes the block.

    `own=False` runs the block inside the caller's transaction (nothing is begun or ended, and
    the block's `Transaction` is ignored).

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
    tx = Transaction()
    if not own:
        yield tx
        return
    con.execute("BEGIN TRANSACTION")
    try:
        yield tx
    except BaseException:
        # a statement interrupted mid-result leaves it unfinished, and DuckDB then refuses any
        # other statement on the connection, ROLLBACK included: discard it first (a no-op otherwise)
        try:
            con.abort()
            con.execute("ROLLBACK")
        finally:  # a staged file is discarded even when the rollback itself fails
            for step in tx.on_rollback:
                step()
        raise
    with sigint_deferred():
        try:
            con.execute("COMMIT")
        except BaseException:
            for step in tx.on_rollback:
                step()
            raise
        if tx.stored:
            STORED.append(tx.stored)
        for step in tx.after_commit:
            try:
                step()
            except RiskcovError as exc:  # say what is true: the work is stored all the same
                if tx.stored is None:
                    raise
                raise type(exc)(f"{tx.stored} is stored, but {exc}") from exc


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


_SIZE_UNITS = {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}
_SIZE_UNITS |= {"KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}


def _size_bytes(text: str) -> float:
    """Bytes of a DuckDB size setting as it reads it back ('18.8 GiB', '512.0 MiB')."""
    number, unit = text.split()
    return float(number) * _SIZE_UNITS[unit]


def resident_bytes() -> int | None:
    """The process's resident set size now (Linux's /proc/self/statm), None where unknown.

    >>> resident_bytes() is None or resident_bytes() > 0
    True
    """
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def memory_share(con: duckdb.DuckDBPyConnection, process_bytes: int, floor_bytes: int) -> int:
    """DuckDB's share of a memory target for the whole process: `process_bytes` less what the
    process holds outside DuckDB's buffers (its resident set less DuckDB's own memory usage),
    and at least `floor_bytes` (also where the resident set is unknown). After a large run JSON
    was parsed, its freed Python objects stay resident and DuckDB gets less; a Parquet file
    that DuckDB read itself leaves it nearly all.

    >>> con = duckdb.connect()
    >>> 2**20 <= memory_share(con, 2**40, 2**20) <= 2**40
    True
    >>> memory_share(con, 0, 2**20)
    1048576
    """
    resident = resident_bytes()
    row = one(con.execute("SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory()"))
    if resident is None or row is None:
        return floor_bytes
    outside = max(0, resident - int(row[0]))
    return max(floor_bytes, process_bytes - outside)


@contextmanager
def bounded_memory(con: duckdb.DuckDBPyConnection, limit_bytes: int) -> Iterator[None]:
    """DuckDB's `memory_limit` lowered to `limit_bytes` for the block (an instance-wide
    setting), then restored (also when the block fails): beyond it, DuckDB spills its temporary
    tables and operator state to its temp directory (`<warehouse>.tmp`). A no-op when the limit
    is already at most `limit_bytes`, and for an in-memory database, whose temp directory would
    be the working directory's `.tmp`.

    >>> import pathlib, tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> con = duckdb.connect(str(pathlib.Path(folder.name) / "file.duckdb"))
    >>> with bounded_memory(con, 2**29):
    ...     one(con.execute("SELECT current_setting('memory_limit')"))
    ('512.0 MiB',)
    >>> one(con.execute("SELECT current_setting('memory_limit')")) == one(duckdb.connect().execute(
    ...     "SELECT current_setting('memory_limit')"))
    True
    >>> con.close(); folder.cleanup()
    """
    row = one(
        con.execute(
            "SELECT current_setting('memory_limit'), "
            "(SELECT path FROM duckdb_databases() WHERE database_name = current_database())"
        )
    )
    if row is None or row[1] is None or _size_bytes(str(row[0])) <= limit_bytes:
        yield
        return
    before = str(row[0])
    default = one(duckdb.connect().execute("SELECT current_setting('memory_limit')"))
    con.execute(f"SET memory_limit = '{int(limit_bytes)}B'")
    try:
        yield
    finally:
        # the setting reads back rounded: the default is restored as such, any other as read
        if default is not None and before == default[0]:
            con.execute("RESET memory_limit")
        else:
            con.execute(f"SET memory_limit = '{before}'")


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
