"""`riskcov runs`: what the warehouse holds, per run and experiment (the view v_run_experiments)."""

from __future__ import annotations

from typing import Any

import duckdb


def list_runs(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Runs with their experiments and counts, ordered by run_id then experiment index.

    >>> import tempfile, pathlib
    >>> from riskcov.evaluation.prepared_warehouse import open_warehouse
    >>> with open_warehouse(pathlib.Path(tempfile.mkdtemp()) / "w.duckdb") as con:
    ...     list_runs(con)
    []
    """
    out: list[dict[str, Any]] = []
    for row in con.execute("SELECT * FROM v_run_experiments ORDER BY run_id, experiment_index").fetchall():
        (run_id, path, commit, ts, ingested, idx, mode, n_p, n_f, n_i, n_pred, n_abs, per_sample) = row
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
                # per-sample: `mode` is method, seed, split and domain, `participants` counts
                # clusters and `items` samples (the keys stay, docs/python.md)
                "kind": "per-sample" if per_sample else "PHQ-8",
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
