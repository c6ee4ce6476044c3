"""`riskcov calibrate` on a per-sample run (docs/python.md): the features are the experiment's
score columns by CSF name (`confidence`, `msp`, ...) and `prob`; the target is correctness
(loss 0) or the loss (1 - loss, for losses in [0, 1]). The rows are the experiment's
non-abstained samples in file order, read through the SQL that `evaluate` applies the fitted
calibrator with (riskcov.scoring.sample_expressions)."""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np

from riskcov.errors import InputError, UsageError
from riskcov.ingest.inputs import Input
from riskcov.scoring.calibration.artifact import Target
from riskcov.scoring.sample_expressions import PROB, column_sql, rows_sql


def sample_rows(
    con: duckdb.DuckDBPyConnection, inp: Input, features: list[str], target: Target
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """(x, y, correct): the feature matrix, the fitting target and the 0/1 outcome of the
    experiment's non-abstained samples."""
    if target == "near_correct":
        raise UsageError("--target near_correct applies to PHQ-8 runs; choose correctness or loss")
    where = f"{inp.run_id}, {inp.describe()}"
    (columns,) = con.execute(
        "SELECT list(DISTINCT csf ORDER BY csf) FROM sample_scores WHERE experiment_id = ?",
        [inp.experiment_id],
    ).fetchone() or ([],)
    for f in features:
        if f != PROB and f not in (columns or []):
            raise InputError(
                f"--features {f}: run {where} has no score column {f} "
                f"(its CSFs: {', '.join(columns or [])}; confidence_<name> columns are CSF <name>)"
            )
    cols = ", ".join(f"{column_sql(f)} AS f{j}" for j, f in enumerate(features))
    rows = con.execute(
        f"SELECT u.loss, {cols} FROM samples AS u JOIN {rows_sql(features)} AS s"
        " USING (experiment_id, sample_index)"
        " WHERE u.experiment_id = ? AND NOT u.abstained ORDER BY u.sample_index",
        [inp.experiment_id],
    ).fetchall()
    if not rows:
        raise InputError(f"run {where}: no non-abstained samples to fit on")
    data = np.array(rows, dtype=np.float64)
    if np.isnan(data[:, 1:]).any():
        j = int(np.argwhere(np.isnan(data[:, 1:]))[0][1])
        raise InputError(f"--features {features[j]}: run {where} has samples without a value of it")
    loss = data[:, 0]
    if target == "loss" and ((loss < 0) | (loss > 1)).any():
        raise InputError(f"--target loss: run {where} has losses outside [0, 1]; choose correctness")
    correct = (loss == 0).astype(np.float64)
    return data[:, 1:], (correct if target == "correctness" else 1.0 - loss), correct
