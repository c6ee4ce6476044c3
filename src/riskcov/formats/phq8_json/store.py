"""Write a PHQ-8 run's rows: `participants`, `items`, `item_signals` (one scan per table and batch).

A large run is stored batch by batch while the next batch is decoded: the decoding (Python,
holding the GIL) runs on the calling thread or in child processes (decoders.py), the inserts
on one worker thread. The columns DuckDB is handed are lean.py's (no Python objects where that
can be helped: DuckDB needs the GIL to read one).
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

import duckdb

from riskcov.errors import InputError
from riskcov.formats.phq8_json.lean import Lean, LeanRows, lean
from riskcov.formats.phq8_json.validate import NULL_MASKED, SIGNALS
from riskcov.warehouse.duckdb_helpers import one, one_thread, registered

if TYPE_CHECKING:
    from riskcov.formats.phq8_json.columns import ExperimentRows

_TABLES = ("item_signals", "items", "participants")


def fill(
    con: duckdb.DuckDBPyConnection, experiment_ids: list[int], experiments: list[ExperimentRows]
) -> None:
    """Insert each experiment's rows under the id the orchestrator drew for it."""
    fill_batches(con, experiment_ids, [[exp] for exp in experiments])


def fill_batches(
    con: duckdb.DuckDBPyConnection,
    experiment_ids: list[int],
    experiments: list[Iterable[ExperimentRows]],
) -> None:
    """Insert each experiment's batches of rows (in order) under its id: a batch is taken from
    its iterable (decoded, on this thread) while the one before is inserted (store_batches)."""
    batches = zip(experiment_ids, experiments, strict=True)
    store_batches(con, experiment_ids, ((eid, lean(rows)) for eid, each in batches for rows in each))


def store_batches(
    con: duckdb.DuckDBPyConnection, experiment_ids: list[int], batches: Iterable[tuple[int, LeanRows]]
) -> None:
    """Insert the batches (experiment id, columns) in order: a batch is taken from `batches`
    on this thread while the one before is inserted on a worker thread.
    An exception from `batches` (or an insert) stops the fill once the insert under way has
    ended; the caller's transaction then holds the batches stored so far (`delete_rows`).
    DuckDB works on one thread meanwhile: the decoding has the other core (two DuckDB threads
    beside it cost more CPU and time: docs/performance.md#ingest)."""
    with one_thread(con), ThreadPoolExecutor(max_workers=1, thread_name_prefix="riskcov-store") as pool:
        pending: Future[None] | None = None
        for eid, prepared in batches:
            if pending is not None:
                pending.result()
            pending = pool.submit(_insert, con, eid, prepared)
        if pending is not None:
            pending.result()
    for eid in experiment_ids:
        check_items(con, eid)


def delete_rows(con: duckdb.DuckDBPyConnection, experiment_ids: list[int]) -> None:
    """Remove the rows fill_batches stored for these experiments (inside the caller's transaction)."""
    for table in _TABLES:
        con.execute(f"DELETE FROM {table} WHERE list_contains(?, experiment_id)", [experiment_ids])


def _insert(con: duckdb.DuckDBPyConnection, eid: int, rows: LeanRows) -> None:
    people = ["participant_id", "success", "error", "has_signals"]
    _append(con, "participants", eid, rows.participants, people)
    _null_masked(rows.items, ["pred"], "pred_null")
    _append(con, "items", eid, rows.items, ["participant_id", "item_index", "item_name", "pred", "gt"])
    _null_masked(rows.signals, [k for k in SIGNALS if k in NULL_MASKED])
    order = ["participant_id", "item_index", "signal_keys", *SIGNALS, "extra_signals"]
    _append(con, "item_signals", eid, rows.signals, order)


def _null_masked(lean: Lean, names: list[str], mask: str = "{}__null") -> None:
    """Numbers with a null mask (numpy has no NULL) read as NULL where masked."""
    for k in names:
        sql, params = lean.select[k]
        lean.select[k] = (f"CASE WHEN {mask.format(k)} THEN NULL ELSE {sql} END", params)


def _append(con: duckdb.DuckDBPyConnection, table: str, eid: int, lean: Lean, order: list[str]) -> None:
    """INSERT the rows of `lean` into `table` after experiment_id, its columns in `order`."""
    with registered(con, "_rows", lean.columns):
        select = ", ".join(lean.select[c][0] for c in order)
        params = [p for c in order for p in lean.select[c][1]]
        con.execute(f"INSERT INTO {table} SELECT ?, {select} FROM _rows", [eid, *params])


def check_items(con: duckdb.DuckDBPyConnection, eid: int) -> None:
    """Once an experiment is stored: refuse it unless every successful participant has one
    row per item and every failed one none. The items are counted per participant before the
    participants are joined (one join of the participants with the items' rows, grouped after
    it, cost ten times as much)."""
    bad = one(
        con.execute(
            """
        WITH counts AS (
            SELECT participant_id, count(item_index) AS n FROM items WHERE experiment_id = $1
            GROUP BY participant_id
        ),
        experiment AS (SELECT len(item_names) AS expected FROM experiments WHERE experiment_id = $1)
        SELECT p.participant_id, coalesce(c.n, 0) AS n, e.expected
        FROM participants p
        CROSS JOIN experiment e
        LEFT JOIN counts c USING (participant_id)
        WHERE p.experiment_id = $1 AND coalesce(c.n, 0) <> CASE WHEN p.success THEN e.expected ELSE 0 END
        ORDER BY p.participant_id LIMIT 1
        """,
            [eid],
        )
    )
    if bad:
        raise InputError(f"participant {bad[0]}: {bad[1]} items stored, expected {bad[2]}")
