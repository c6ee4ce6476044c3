"""riskcov from Python: `riskcov.evaluate(data)`, `riskcov.Evaluation`, `riskcov.Warehouse`
(docs/python.md). The CLI's commands call the same library functions (`evaluate_and_store`
for an evaluation), so the two give the same artifact for the same data and options."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from riskcov.api.evaluation import Evaluation
from riskcov.api.warehouse import DataOrPath, Warehouse
from riskcov.errors import UsageError

__all__ = ["Evaluation", "Warehouse", "evaluate"]


def evaluate(
    data: DataOrPath,
    *,
    confidence: str = "all",
    loss: str | None = None,
    correct: str | None = None,
    cluster: str | None = None,
    resamples: int = 10_000,
    seed: int = 42,
    warehouse: str | Path | Warehouse | None = None,
    **metric_options: Any,
) -> Evaluation:
    """Evaluate per-sample predictions (or a run file) in one call: RC curve, AURC, AUGRC,
    MAE@coverage, Coverage@Risk and their cluster-bootstrap 95% CIs.

    `data`: a pandas or polars DataFrame, a pyarrow Table, a mapping of column name -> numpy
    array or list, or a path (a per-sample table or a PHQ-8 run JSON). In-memory data follows
    the per-sample columns (`confidence`, `confidence_<name>`, `correct` or `loss` or
    `label` + `prediction`, optional `sample_id` (default: the row number), `cluster`,
    `abstained`, `prob`, ...); `correct=`, `loss=` and `cluster=` name the columns holding
    those when they are called otherwise. For a run file, `loss=` picks the loss (abs,
    abs_norm or given). `confidence`: `all` (every score column), a CSF name, or any
    `riskcov evaluate --confidence` value. `resamples=0`: no bootstrap.

    `warehouse`: a DuckDB file (or a `Warehouse`) to keep the run and the evaluation in;
    by default an in-memory one. `metric_options`: coverage_grid, area_coverage, alpha_grid,
    estimator, curve_points, intersection_only, calibration, costs, group, engine,
    spark_master, spark_conf, and the experiment selectors mode, method, experiment_seed,
    split, domain.

    >>> import riskcov
    >>> ev = riskcov.evaluate({"confidence": [0.9, 0.8, 0.3, 0.2], "correct": [1, 1, 0, 1]},
    ...                       resamples=200)
    >>> round(ev.value("aurc_full"), 4)  # losses 0, 0, 1, 0: (1/3 / 2 + (1/3 + 1/4) / 2) / 4
    0.1146
    >>> sorted(ev.artifact["confidence_variants"])
    ['confidence']
    """
    from riskcov.api.options import evaluate_options
    from riskcov.formats.frames import frame_kind, not_data

    in_memory = frame_kind(data) is not None
    if not in_memory and not isinstance(data, (str, os.PathLike)):
        raise not_data(data)
    if not in_memory and (correct or cluster):
        raise UsageError("correct= and cluster= name columns of in-memory data, not of a run file")
    # the options checked before the data is stored: a refused one leaves the warehouse as it was
    evaluate_options([], confidence, resamples, seed, metric_options)
    wh = warehouse if isinstance(warehouse, Warehouse) else Warehouse(warehouse)
    with wh:
        if in_memory:
            run = wh.ingest(data, loss=loss, correct=correct, cluster=cluster)
            return wh.evaluate(run, confidence=confidence, resamples=resamples, seed=seed, **metric_options)
        options = {**metric_options, **({"loss": loss} if loss else {})}
        return wh.evaluate(Path(data), confidence=confidence, resamples=resamples, seed=seed, **options)
