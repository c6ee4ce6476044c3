"""Run replicate chunks on several DuckDB connections at once (one per worker).

Most of a chunk's SQL runs on one thread whatever DuckDB's `threads` setting: the running sums
are a streaming window (one ordered stream) and the metric aggregates run single-threaded on
purpose (sums in table order, bit-reproducible). So a chunk uses one core and the others
wait. Chunks are independent (a replicate's numbers depend only on its own sample rows), so
`run` gives each worker connection its own chunks, every query on one thread: the same SQL on
the same rows, so the same bits, with every core busy.

The workers share the replicate-independent tables (SHARED) through an in-memory database
attached to the instance; each sees them under the usual names as TEMP views and keeps its own
TEMP tables per chunk. A connection inside an open transaction cannot share what it has not
committed (and DuckDB lets a transaction write to one database only), so there (an input
ingested on the fly, stored in the same transaction) the chunks run one after the other on the
caller's connection, as they do on a read-only instance (which cannot attach a database). An
error or Ctrl-C in any worker, drawing or computing, stops the others' queries and is raised.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

import duckdb

from riskcov.warehouse.duckdb_helpers import one, one_thread

SHARED = (
    "eval_scored",
    "eval_cells",
    "eval_harmonic",
    "eval_series",
    "eval_people",
    "eval_losses",
    # stream_plan.TABLES: what the sort-once path stored once, in its stored order
    "eval_stream_cells",
    "eval_group_cells",
    "eval_stream_people",
    "eval_stream_losses",
    # cells.TABLE and cells.POPULATIONS: the few-cluster path's cumulative cells and lists
    "eval_cumulative_cells",
    "eval_cell_populations",
)
_names = itertools.count(1)
Chunk = TypeVar("Chunk")


def run(
    con: duckdb.DuckDBPyConnection,
    chunks: Iterator[Chunk],
    work: Callable[[duckdb.DuckDBPyConnection, Chunk], None],
    workers: int,
) -> None:
    """work(connection, chunk) for every chunk, on `workers` connections (con and cursors of it).

    `work` runs on several threads at once; what it shares with other calls it must guard.
    The first chunk (evaluate's holds replicate 0, whose curves and hull stay on `con`) always
    runs on `con`; the other workers take the next chunks meanwhile instead of waiting for it.
    """
    first = next(chunks, None)
    if first is None:
        return
    name = None if workers <= 1 or _in_transaction(con) else _attach(con)
    if name is None:
        work(con, first)
        for chunk in chunks:
            work(con, chunk)
        return
    cursors: list[duckdb.DuckDBPyConnection] = []
    try:
        for table in SHARED:
            con.execute(f"CREATE TABLE {name}.{table} AS FROM {table}")
        for _ in range(workers - 1):
            cursors.append(_worker(con, name))
        _parallel(con, cursors, first, chunks, work)
    finally:
        for cur in cursors:
            cur.close()
        con.execute(f"DETACH {name}")


def keep_blocks(con: duckdb.DuckDBPyConnection, nbytes: int) -> None:
    """Let DuckDB's block allocator keep up to `nbytes` of blocks for reuse (its setting
    block_allocator_memory, instance-wide), where the instance would hand each freed block back
    to the system: every chunk's tables and aggregates are freed at its end, and the next chunk
    then faulted fresh pages in for its own (docs/performance.md, the block pool). The memory
    is kept until the instance closes, at most what the chunks used at once; DuckDB refuses to
    lower the setting, so a larger pool already there stays as it is.

    >>> con = duckdb.connect()
    >>> keep_blocks(con, 2**26); keep_blocks(con, 2**20); keep_blocks(con, 0)
    >>> one(con.execute("SELECT current_setting('block_allocator_memory')"))
    ('64.0 MiB',)
    """
    if nbytes <= 0:
        return
    with contextlib.suppress(duckdb.InvalidInputException):  # "cannot be reduced": it is larger
        con.execute(f"SET block_allocator_memory = '{int(nbytes)}B'")


def _attach(con: duckdb.DuckDBPyConnection) -> str | None:
    """The name of a new in-memory database for the shared tables; None on a read-only
    instance, which cannot attach one."""
    name = f"riskcov_chunks_{next(_names)}"
    try:
        con.execute(f"ATTACH ':memory:' AS {name}")
    except duckdb.Error:
        return None
    return name


def _in_transaction(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether con is inside an explicit transaction: there each statement shares its id."""
    ids = [one(con.execute("SELECT txid_current()")) for _ in range(2)]
    return ids[0] == ids[1]


def _worker(con: duckdb.DuckDBPyConnection, name: str) -> duckdb.DuckDBPyConnection:
    cur = con.cursor()
    cur.execute("SET enable_progress_bar = false")
    for table in SHARED:
        cur.execute(f"CREATE OR REPLACE TEMP VIEW {table} AS FROM {name}.{table}")
    return cur


def _parallel(
    con: duckdb.DuckDBPyConnection,
    cursors: list[duckdb.DuckDBPyConnection],
    first: Chunk,
    chunks: Iterator[Chunk],
    work: Callable[[duckdb.DuckDBPyConnection, Chunk], None],
) -> None:
    lock = threading.Lock()
    stop = threading.Event()
    errors: list[BaseException] = []

    everyone = [con, *cursors]

    def halt(but: duckdb.DuckDBPyConnection | None = None) -> None:
        """Stop every worker: no next chunk, and the running queries (but `but`'s) interrupted."""
        stop.set()
        for other in everyone:
            if other is not but:
                other.interrupt()

    def loop(cur: duckdb.DuckDBPyConnection) -> None:
        try:
            if cur is con and not stop.is_set():
                work(con, first)
            while not stop.is_set():
                with lock:  # the draws come from one RandomState, in order
                    chunk = next(chunks, None)
                if chunk is None:
                    return
                work(cur, chunk)
        except BaseException as exc:  # an error, or Ctrl-C (in this thread): stop the others too
            errors.append(exc)
            halt(cur)

    helpers = [threading.Thread(target=loop, args=(cur,), daemon=True) for cur in cursors]
    with one_thread(con):  # an instance-wide setting: every worker's queries
        for t in helpers:
            t.start()
        try:
            loop(con)
        except BaseException:  # a second Ctrl-C while loop handled the first: stop them all
            halt()
            raise
        finally:
            _join(helpers, halt)
    if errors:  # the first is the cause; the others' are the interrupts it sent
        raise errors[0]


def _join(helpers: list[threading.Thread], halt: Callable[[], None]) -> None:
    """Wait for the workers; Ctrl-C while waiting stops their queries first."""
    try:
        for t in helpers:
            t.join()
    except BaseException:
        halt()
        for t in helpers:
            t.join()
        raise
