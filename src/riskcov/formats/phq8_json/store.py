"""Write a PHQ-8 run's rows: `participants`, `items`, `item_signals` (one scan per table)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import duckdb
import numpy as np

from riskcov.errors import InputError
from riskcov.formats.phq8_json.validate import NULL_MASKED, SIGNALS
from riskcov.warehouse.duckdb_helpers import one, registered

if TYPE_CHECKING:
    from riskcov.formats.phq8_json.columns import ExperimentRows

_SIGNAL_COLUMNS = ", ".join(
    f"CASE WHEN {k}__null THEN NULL ELSE {k} END" if k in NULL_MASKED else k for k in SIGNALS
)


def fill(
    con: duckdb.DuckDBPyConnection, experiment_ids: list[int], experiments: list[ExperimentRows]
) -> None:
    """Insert each experiment's rows under the id the orchestrator drew for it."""
    for eid, exp in zip(experiment_ids, experiments, strict=True):
        _insert(con, eid, exp)


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


def _insert(con: duckdb.DuckDBPyConnection, eid: int, exp: ExperimentRows) -> None:
    with registered(con, "_p", exp.participants):
        con.execute(
            "INSERT INTO participants SELECT ?, participant_id, success, error, has_signals FROM _p",
            [eid],
        )
    with registered(con, "_i", exp.items):
        con.execute(
            "INSERT INTO items SELECT ?, participant_id, item_index, item_name, "
            "CASE WHEN pred_null THEN NULL ELSE pred END, gt FROM _i",
            [eid],
        )
    layout, layouts = _key_layouts(exp.signals["signal_keys"])
    signals = {**{k: v for k, v in exp.signals.items() if k != "signal_keys"}, "layout": layout}
    with registered(con, "_s", signals):
        con.execute(
            "INSERT INTO item_signals SELECT ?, participant_id, item_index, "
            "CAST(? AS VARCHAR[][])[layout + 1], "
            f"{_SIGNAL_COLUMNS}, extra_signals FROM _s",
            [eid, layouts],
        )
    # one row per item of every successful participant, none for failed ones
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
