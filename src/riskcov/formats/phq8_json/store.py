"""Write a PHQ-8 run's rows: `participants`, `items`, `item_signals` (one scan per table and batch).

A large run is stored batch by batch while the next batch is decoded: the decoding (Python,
holding the GIL) runs on the calling thread, the inserts on one worker thread. DuckDB releases
the GIL while it works, except where it reads a Python object, so the columns it is handed
hold no Python objects where that can be helped (`lean`): text becomes codes into a list
passed as one parameter, equal-length lists of doubles one column per position.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import chain, repeat
from operator import is_
from typing import TYPE_CHECKING, Any

import duckdb
import numpy as np

from riskcov.errors import InputError
from riskcov.formats.phq8_json.validate import FLOATS, NULL_MASKED, SIGNALS
from riskcov.warehouse.duckdb_helpers import one, one_thread, registered

if TYPE_CHECKING:
    from riskcov.formats import Columns
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


@dataclass
class Lean:
    """Columns for DuckDB and the SQL that rebuilds each original column from them."""

    columns: Columns
    # original column -> SQL over `columns`, and the parameters its `?` stand for
    select: dict[str, tuple[str, list[Any]]] = field(default_factory=dict)


@dataclass
class LeanRows:
    participants: Lean
    items: Lean
    signals: Lean


def lean(exp: ExperimentRows) -> LeanRows:
    """The rows of `exp` as columns DuckDB reads without the GIL where possible."""
    signals = dict(exp.signals)
    layout, layouts = _key_layouts(signals.pop("signal_keys"))
    s = _lean(signals, {"signal_keys": ("CAST(? AS VARCHAR[][])[layout + 1]", [layouts])})
    s.columns["layout"] = layout
    return LeanRows(_lean(exp.participants, {}), _lean(exp.items, {}), s)


def _lean(columns: Columns, given: dict[str, tuple[str, list[Any]]]) -> Lean:
    out = Lean({}, dict(given))
    for name, values in columns.items():
        if values.dtype != object:
            out.columns[name], out.select[name] = values, (name, [])
            continue
        coded = _codes(values)
        if coded is not None:
            out.columns[name] = coded[0]
            out.select[name] = (f"CAST(? AS VARCHAR[])[{name}]", [coded[1]])
            continue
        wide = _doubles(values) if SIGNALS.get(name) == FLOATS else None
        if wide is not None:
            out.select[name] = _wide(out.columns, name, *wide)
            continue
        out.columns[name], out.select[name] = values, (name, [])
    return out


def _codes(values: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], list[str]] | None:
    """Text (or null) values as 1-based codes into a list of the distinct texts (null: 0,
    which indexes nothing), or None when the values are not all text or null.

    >>> _codes(np.array(["b", None, "a", "b"], dtype=object))
    (array([1, 0, 2, 1], dtype=int32), ['b', 'a'])
    """
    try:
        distinct = dict.fromkeys(values.tolist())
    except TypeError:  # lists
        return None
    texts = [v for v in distinct if v is not None]
    if any(type(v) is not str for v in texts):
        return None
    code: dict[str | None, int] = {None: 0, **{v: i + 1 for i, v in enumerate(texts)}}
    return np.fromiter(map(code.__getitem__, values.tolist()), dtype=np.int32, count=len(values)), texts


def _doubles(
    values: np.ndarray[Any, Any],
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]] | None:
    """Lists of doubles or nulls, all of one length > 0, or null lists: (the doubles one row
    each, NaN where null; which elements are null; which lists are null); else None."""
    rows = values.tolist()
    given = [r for r in rows if r is not None]
    if not given or set(map(type, given)) != {list}:
        return None
    widths = set(map(len, given))
    width = widths.pop()
    if widths or width == 0:
        return None
    lists = np.fromiter(map(is_, rows, repeat(None)), dtype=bool, count=len(rows))
    unread = [0.0] * width  # a null list's values
    flat = list(chain.from_iterable(unread if r is None else r for r in rows))
    if not set(map(type, flat)) <= {float, type(None)}:
        return None
    nulls = np.fromiter(map(is_, flat, repeat(None)), dtype=bool, count=len(flat))
    doubles = np.array(flat, dtype=np.float64)  # None: NaN, masked
    return doubles.reshape(len(rows), width), nulls.reshape(len(rows), width), lists


def _wide(
    columns: Columns,
    name: str,
    doubles: np.ndarray[Any, Any],
    nulls: np.ndarray[Any, Any],
    lists: np.ndarray[Any, Any],
) -> tuple[str, list[Any]]:
    """The columns of a list column of `name` one per position (`_doubles`), and the SQL that
    rebuilds its lists; a null mask only where there are nulls."""
    parts = []
    for j in range(doubles.shape[1]):
        columns[f"{name}__{j}"] = doubles[:, j]
        part = f"{name}__{j}"
        if nulls[:, j].any():
            columns[f"{name}__{j}__null"] = nulls[:, j]
            part = f"CASE WHEN {name}__{j}__null THEN NULL ELSE {part} END"
        parts.append(part)
    sql = "CAST([" + ", ".join(parts) + "] AS DOUBLE[])"
    if lists.any():
        columns[f"{name}__null"] = lists
        sql = f"CASE WHEN {name}__null THEN NULL ELSE {sql} END"
    return sql, []


def _key_layouts(keys: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], list[list[str]]]:
    """Each item's position in its run's distinct signal-key lists, and those lists.

    DuckDB converting a Python list per item cost ~2 s of a 100,000-participant ingest (800k
    lists of 19 keys); the items of a run nearly always share one list (fast.py passes the same
    list object for all), which is then one parameter.

    >>> _key_layouts(np.array([["a"], ["a", "b"], ["a"], None], dtype=object)[:3])
    (array([0, 1, 0], dtype=int32), [['a'], ['a', 'b']])
    """
    ids = np.fromiter(map(id, keys), dtype=np.int64, count=len(keys))
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    index: dict[tuple[str, ...], int] = {}
    position = np.empty(len(first), dtype=np.int32)
    for u in np.argsort(first, kind="stable"):  # numbered in order of appearance, not of address
        position[u] = index.setdefault(tuple(keys[first[u]]), len(index))
    return position[inverse].reshape(-1), [list(k) for k in index]


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
    row per item and every failed one none."""
    bad = one(
        con.execute(
            """
        SELECT p.participant_id, count(i.item_index) AS n, len(any_value(e.item_names)) AS expected
        FROM participants p
        JOIN experiments e USING (experiment_id)
        LEFT JOIN items i USING (experiment_id, participant_id)
        WHERE p.experiment_id = ?
        GROUP BY p.participant_id, p.success
        HAVING n <> CASE WHEN p.success THEN expected ELSE 0 END
        ORDER BY p.participant_id LIMIT 1
        """,
            [eid],
        )
    )
    if bad:
        raise InputError(f"participant {bad[0]}: {bad[1]} items stored, expected {bad[2]}")
