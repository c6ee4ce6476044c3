"""Write a PHQ-8 run's rows: `participants`, `items`, `item_signals` (one scan per table)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb

from riskcov.db import one
from riskcov.errors import InputError
from riskcov.formats.phq8_json.validate import NULL_MASKED, SIGNALS

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


def _insert(con: duckdb.DuckDBPyConnection, eid: int, exp: ExperimentRows) -> None:
    con.register("_p", exp.participants)
    con.execute(
        "INSERT INTO participants SELECT ?, participant_id, success, error, has_signals FROM _p",
        [eid],
    )
    con.register("_i", exp.items)
    con.execute(
        "INSERT INTO items SELECT ?, participant_id, item_index, item_name, "
        "CASE WHEN pred_null THEN NULL ELSE pred END, gt FROM _i",
        [eid],
    )
    con.register("_s", exp.signals)
    con.execute(
        "INSERT INTO item_signals SELECT ?, participant_id, item_index, signal_keys, "
        f"{_SIGNAL_COLUMNS}, extra_signals FROM _s",
        [eid],
    )
    for name in ("_p", "_i", "_s"):
        con.unregister(name)
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
