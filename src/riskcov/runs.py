"""`riskcov runs`: what the warehouse holds, per run and experiment."""

from __future__ import annotations

from typing import Any

import duckdb

_QUERY = """
SELECT r.run_id, r.source_path, r.git_commit, r."timestamp", CAST(r.ingested_at AS VARCHAR),
       e.experiment_index, e.mode,
       count(DISTINCT p.participant_id) AS participants,
       count(DISTINCT p.participant_id) FILTER (WHERE NOT p.success) AS failed,
       count(i.item_index) AS items,
       count(i.pred) AS predicted,
       count(i.item_index) - count(i.pred) AS abstained
FROM runs r
JOIN experiments e USING (run_id)
LEFT JOIN participants p USING (experiment_id)
LEFT JOIN items i USING (experiment_id, participant_id)
GROUP BY ALL
ORDER BY r.run_id, e.experiment_index
"""


def list_runs(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Runs with their experiments and counts, ordered by run_id then experiment index.

    >>> import tempfile, pathlib
    >>> from riskcov.warehouse import open_warehouse
    >>> with open_warehouse(pathlib.Path(tempfile.mkdtemp()) / "w.duckdb") as con:
    ...     list_runs(con)
    []
    """
    out: list[dict[str, Any]] = []
    for row in con.execute(_QUERY).fetchall():
        (run_id, path, commit, ts, ingested, idx, mode, n_p, n_f, n_i, n_pred, n_abs) = row
        if not out or out[-1]["run_id"] != run_id:
            out.append({"run_id": run_id, "source_path": path, "git_commit": commit,
                        "timestamp": ts, "ingested_at": ingested, "experiments": []})
        out[-1]["experiments"].append({
            "experiment_index": idx, "mode": mode, "participants": n_p, "failed": n_f,
            "items": n_i, "predicted": n_pred, "abstained": n_abs,
            "abstention_rate": (n_abs / n_i) if n_i else 0.0,
        })
    return out
