"""Class-balanced AURC and AUGRC (docs/metrics-extended.md): per-sample runs whose samples all
carry a `label` get `aurc_ba` and `augrc_ba` per series and replicate, from the SQL macros
rc_class_cells (once per evaluation) and rc_balanced_of (per replicate chunk, over the chunk's
working points)."""

from __future__ import annotations

import duckdb
import numpy as np

from riskcov.ingest.inputs import Input
from riskcov.metrics.engine import Results
from riskcov.metrics.scalars import put
from riskcov.scoring.scored import Series
from riskcov.warehouse.duckdb_helpers import one

KEYS = ("aurc_ba", "augrc_ba")


def prepare(
    con: duckdb.DuckDBPyConnection, inputs: list[Input], series: list[Series], estimator: str
) -> bool:
    """TEMP TABLE eval_class_cells (warehouse_class_cells of eval_scored) when every input is a
    per-sample run whose samples all have a label and the estimator is plateau-trapezoid (the
    areas' convention); False, and no table, otherwise."""
    if estimator != "plateau-trapezoid" or not all(i.per_sample for i in inputs):
        return False
    row = one(
        con.execute(
            "SELECT count(*) FILTER (WHERE label IS NULL), count(*) FROM samples "
            "WHERE list_contains(?::INTEGER[], experiment_id)",
            [[i.experiment_id for i in inputs]],
        )
    )
    if row is None or row[0] > 0 or row[1] == 0:
        return False
    pairs = ", ".join(
        f"({s.index}, {int(inputs[s.input_no].experiment_id)})" for s in series if s.computed == s.index
    )
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE eval_series_experiments(series, experiment_id) AS VALUES {pairs}"
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE eval_class_cells AS "
        "FROM warehouse_class_cells('eval_scored', 'eval_series_experiments')"
    )
    return True


def compute(con: duckdb.DuckDBPyConnection, series: list[Series], res: Results) -> None:
    """aurc_ba and augrc_ba of the replicates in eval_samples, over eval_points, into `res`."""
    out = con.execute(
        "SELECT series, replicate, aurc_ba, augrc_ba "
        "FROM rc_balanced_of('eval_class_cells', 'eval_samples', 'eval_points')"
    ).fetchnumpy()
    for key in KEYS:
        put(res, series, key, out["series"], out["replicate"].astype(np.intp), out[key])
