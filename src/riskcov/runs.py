"""`riskcov runs`: what the warehouse holds, per run and experiment."""

from __future__ import annotations

from typing import Any

import duckdb

_QUERY = """
WITH units AS (
    -- PHQ-8: participants and their items; per-sample: clusters and samples
    SELECT p.experiment_id, count(DISTINCT p.participant_id) AS participants,
           count(DISTINCT p.participant_id) FILTER (WHERE NOT p.success) AS failed,
           count(i.item_index) AS items, count(i.pred) AS predicted
    FROM participants p LEFT JOIN items i USING (experiment_id, participant_id)
    GROUP BY p.experiment_id
    UNION ALL
    SELECT experiment_id, count(DISTINCT cluster), 0, count(*), count(*) FILTER (WHERE NOT abstained)
    FROM samples GROUP BY experiment_id
)
SELECT r.run_id, r.source_path, r.git_commit, r."timestamp", CAST(r.ingested_at AS VARCHAR),
       e.experiment_index,
       coalesce(e.mode, e.method || ' seed ' || e.seed || ' ' || e.split || ' ' || e.domain) AS mode,
       coalesce(u.participants, 0), coalesce(u.failed, 0), coalesce(u.items, 0),
       coalesce(u.predicted, 0), coalesce(u.items - u.predicted, 0) AS abstained
FROM runs r
JOIN experiments e USING (run_id)
LEFT JOIN units u USING (experiment_id)
ORDER BY r.run_id, e.experiment_index
"""


def list_runs(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Runs with their experiments and counts, ordered by run_id then experiment index.

    >>> import tempfile, pathlib
    >>> from riskcov.evaluation.prepared_warehouse import open_warehouse
    >>> with open_warehouse(pathlib.Path(tempfile.mkdtemp()) / "w.duckdb") as con:
    ...     list_runs(con)
    []
    """
    out: list[dict[str, Any]] = []
    for row in con.execute(_QUERY).fetchall():
        (run_id, path, commit, ts, ingested, idx, mode, n_p, n_f, n_i, n_pred, n_abs) = row
        if not out or out[-1]["run_id"] != run_id:
            out.append(
                {
                    "run_id": run_id,
                    "source_path": path,
                    "git_commit": commit,
                    "timestamp": ts,
                    "ingested_at": ingested,
                    "experiments": [],
                }
            )
        out[-1]["experiments"].append(
            {
                "experiment_index": idx,
                "mode": mode,
                "participants": n_p,
                "failed": n_f,
                "items": n_i,
                "predicted": n_pred,
                "abstained": n_abs,
                "abstention_rate": (n_abs / n_i) if n_i else 0.0,
            }
        )
    return out
