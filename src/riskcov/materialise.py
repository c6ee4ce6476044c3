"""The warehouse's own point metrics and RC points: the tables `metrics` and `rc_points`
(migration 0006), kept per experiment so that v_metrics / v_rc_points are scans.

Rows are computed by the macros of `sql/` only (warehouse_scored → rc_totals → rc_points →
warehouse_metrics, i.e. rc_summary), exactly as `evaluate --bootstrap-resamples 0`, on the
experiments being added, through TEMP tables (a view chain would recompute the points for every
macro that reads them). Everything runs inside the caller's transaction: an ingest's rows and
their metrics land together or not at all.
"""

from __future__ import annotations

from collections.abc import Iterable

import duckdb
import numpy as np

from riskcov.db import one

TABLES = ("metrics", "rc_points")
_TEMP = ("mat_points", "mat_harmonic", "mat_totals", "mat_scored", "mat_experiments")


def _id_list(ids: Iterable[int]) -> str:
    return ", ".join(str(int(i)) for i in ids)


def forget(con: duckdb.DuckDBPyConnection, experiment_ids: Iterable[int]) -> None:
    """Delete the metrics and RC points of these experiments."""
    listed = _id_list(experiment_ids)
    if listed:
        for table in TABLES:
            con.execute(f"DELETE FROM {table} WHERE experiment_id IN ({listed})")


def forget_run(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """Delete the metrics and RC points of every experiment of a run (before the run goes)."""
    for table in TABLES:
        con.execute(
            f"DELETE FROM {table} WHERE experiment_id IN "
            "(SELECT experiment_id FROM experiments WHERE run_id = ?)",
            [run_id],
        )


def refresh(con: duckdb.DuckDBPyConnection, experiment_ids: Iterable[int] | None = None) -> int:
    """(Re)compute the rows of `experiment_ids` (every experiment when None); return the
    number of metric rows written."""
    if experiment_ids is None:
        for table in TABLES:
            con.execute(f"DELETE FROM {table}")
        ids = [int(r[0]) for r in con.execute("SELECT experiment_id FROM experiments").fetchall()]
    else:
        ids = sorted({int(i) for i in experiment_ids})
        forget(con, ids)
    if not ids:
        return 0
    con.register("_mat_ids", {"experiment_id": np.asarray(ids, dtype=np.int32)})
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE mat_experiments AS SELECT experiment_id FROM _mat_ids")
    finally:
        con.unregister("_mat_ids")
    steps = (
        ("mat_scored", "FROM warehouse_scored('mat_experiments')"),
        ("mat_totals", "FROM rc_totals('mat_scored', 'internal.v_unit_samples')"),
        (
            "mat_points",
            "SELECT series.experiment_id AS experiment_id, series.csf AS csf, "
            "series.loss AS loss, * FROM rc_points('mat_scored', 'internal.v_unit_samples', 'mat_totals')",
        ),
        ("mat_harmonic", "FROM rc_harmonic((SELECT coalesce(max(n_total), 0) FROM mat_totals))"),
    )
    for name, query in steps:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {query}")
    con.execute(
        "INSERT INTO rc_points BY NAME SELECT * EXCLUDE (series) FROM mat_points "
        "ORDER BY experiment_id, csf, loss, replicate, plateau"
    )
    con.execute(
        "INSERT INTO metrics BY NAME SELECT * FROM warehouse_metrics("
        "'mat_scored', 'internal.v_unit_samples', 'mat_points', 'mat_totals', 'mat_harmonic') "
        "ORDER BY experiment_id, csf, loss"
    )
    row = one(con.execute(f"SELECT count(*) FROM metrics WHERE experiment_id IN ({_id_list(ids)})"))
    # on an error the caller's rollback removes them with everything else
    for name in _TEMP:
        con.execute(f"DROP TABLE IF EXISTS temp.{name}")
    return int(row[0]) if row else 0
