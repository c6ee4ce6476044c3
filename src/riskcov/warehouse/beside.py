"""A table built on a second connection to the same database, on a thread of its own, while
the caller's connection goes on with other statements: DuckDB runs one statement at a time per
connection, and much of an ingest's metric tables runs on one core, leaving the other idle
(docs/performance.md#ingest).

Only for a query that reads committed objects alone: the second connection does not see the
caller's open transaction. The table is created in an in-memory database attached for it, and
the caller reads it there (DuckDB starts the caller's transaction on an attached database when
it first touches it, so it sees the table committed before); the database is detached at the end.
"""

from __future__ import annotations

import itertools
import os
import threading
from contextlib import suppress

import duckdb

_NAMES = itertools.count()


class Beside:
    """`CREATE TABLE <name>.t AS <query>` on a cursor of `con`, started now on its own thread;
    `table()` waits for it and names the table; `close()` ends it (interrupting it when it has
    not finished) and detaches its database. A context manager that closes.

    >>> con = duckdb.connect()
    >>> con.execute("BEGIN").execute("CREATE TEMP TABLE mine AS SELECT 3 AS n").fetchall()
    [(1,)]
    >>> with Beside(con, "SELECT range AS k FROM range(5)") as built:
    ...     con.execute(f"SELECT sum(k) + any_value(n) FROM {built.table()}, mine").fetchall()
    [(13,)]
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, query: str) -> None:
        self.database = f"riskcov_beside_{os.getpid()}_{next(_NAMES)}"
        self._cursor = con.cursor()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._build, args=(query,), name="riskcov-beside", daemon=True)
        self._thread.start()

    def _build(self, query: str) -> None:
        try:
            self._cursor.execute(f"ATTACH ':memory:' AS {self.database}")
            self._cursor.execute(f"CREATE TABLE {self.database}.t AS {query}")
        except BaseException as exc:  # raised by table(), on the caller's thread
            self._error = exc

    def table(self) -> str:
        """The built table's qualified name, once built; the build's error if it failed."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return f"{self.database}.t"

    def close(self) -> None:
        if self._thread.is_alive():
            with suppress(duckdb.Error):
                self._cursor.interrupt()
            self._thread.join()
        with suppress(duckdb.Error):
            self._cursor.execute(f"DETACH DATABASE IF EXISTS {self.database}")
        self._cursor.close()

    def __enter__(self) -> Beside:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
