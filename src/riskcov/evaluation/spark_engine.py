"""`riskcov evaluate --engine spark`: the replicates' metrics computed on Apache Spark by the
portable queries of sql/portable/ (docs/spark.md), everything else as with DuckDB.

The scored units are a Spark view: an ingested run's eval_scored shipped once as Arrow
(`compute_all`), or a table Spark reads where it lies (evaluation/spark_input.py). The
bootstrap's multiplicities are drawn by numpy exactly as the DuckDB path draws them
(bootstrap.sample_chunks) and shipped as Arrow, one chunk of replicates at a time. Per chunk
Spark computes the totals and working points (held: materialized), then the summary scalars, MAE@c and
Coverage@Risk, and for replicate 0 effective reliability; the values come back into the same
`engine.Results` the DuckDB engine fills, so the artifact and the stored rows are made by the
same code. What reads every point of a replicate locally (the dominant points of 0/1 losses,
the achievable hull of replicate 0; docs/metrics.md) gets those points back from Spark, for
the series that need them only.
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np

from riskcov.bootstrap import sample_chunks
from riskcov.errors import UsageError
from riskcov.evaluation.options import Options
from riskcov.evaluation.spark_fetch import arrow, dominant, replicate_zero
from riskcov.evaluation.spark_session import session
from riskcov.metrics import cost_curves, engine, portable
from riskcov.scoring.scored import Series

# replicates per chunk shipped to Spark, at most; and the chunk's weight rows (clusters x
# replicates, 16 bytes each as Arrow), at most: the weights, the chunk's working points and
# their windows live in the JVM's heap at once (chunk_sizes)
REPLICATES_PER_CHUNK = 500
WEIGHTS_PER_CHUNK = 5_000_000


def _frame(spark: Any, columns: dict[str, np.ndarray[Any, Any]], view: str) -> Any:
    import pyarrow as pa

    df = spark.createDataFrame(pa.table(columns))
    df.createOrReplaceTempView(view)
    return df


def materialized(df: Any, view: str) -> Any:
    """`df` computed once and held by Spark (a local checkpoint: its rows, not its plan), as
    temp view `view`. A cached DataFrame was not enough: Spark's cache lookup did not match the
    cached totals and points inside the later queries' plans, so each query recomputed them
    from the cells and the weights. A checkpoint's plan is its rows, so every query reads them."""
    kept = df.localCheckpoint(eager=True)
    kept.createOrReplaceTempView(view)
    return kept


def released(kept: Any) -> None:
    """Free the rows `materialized` held for `kept` now, not when the JVM's garbage collector
    finds them unreachable (Spark's ContextCleaner). A classic session unpersists the
    checkpoint's RDD (Dataset.unpersist does not: the checkpoint is not a cached plan). Spark
    Connect has no such call: the client drops the server's reference to the checkpoint when
    its DataFrame is no longer referenced, and the server leaves the blocks to the cleaner."""
    jdf = getattr(kept, "_jdf", None)
    if jdf is None:  # Spark Connect
        return
    plan = jdf.queryExecution().analyzed()
    if plan.getClass().getSimpleName() == "LogicalRDD":
        plan.rdd().unpersist(False)


def exact_in_doubles(spark: Any, clusters: int) -> bool:
    """Whether riskcov_scored's loss sums can be doubles with the same bits as the exact
    DECIMALs (portable.render's `integral`): every loss an integer, and the largest sum a
    replicate can reach (every cluster drawn `clusters` times, at most) below 2**53."""
    row = spark.sql(
        "SELECT coalesce(min(CASE WHEN loss = floor(loss) THEN 1 ELSE 0 END), 1) AS integral, "
        "coalesce(sum(abs(loss)), 0.0) AS total FROM riskcov_scored"
    ).collect()[0]
    return bool(row["integral"] == 1 and float(row["total"]) * max(clusters, 1) < 2.0**53)


def check(opts: Options) -> None:
    """What --engine spark does not compute, refused before any work, with the reason."""
    if opts.estimator != "plateau-trapezoid":
        raise UsageError(
            f"--engine spark computes the plateau-trapezoid estimator, not {opts.estimator}: the item "
            "estimators have no bootstrap (one pass over the point estimate), so --engine duckdb does it"
        )


def compute_all(
    con: duckdb.DuckDBPyConnection,
    opts: Options,
    series: list[Series],
    participants: list[int],
    b: int,
    with_balanced: bool = False,
) -> engine.Results:
    """Every metric of every series of an ingested run (eval_scored, and eval_class_cells when
    `with_balanced`: metrics/balanced.py) for replicates 0..b, on Spark."""
    check(opts)
    spark = session(opts.spark_master, opts.spark_conf)
    # Arrow from DuckDB to Spark: NULL stays NULL (through pandas it became NaN)
    scored = con.sql(
        "SELECT series, participant_id AS cluster, confidence, loss, loss_scale FROM eval_scored"
    ).to_arrow_table()
    spark.createDataFrame(scored).cache().createOrReplaceTempView("riskcov_scored")
    if with_balanced:
        cells = con.sql(
            "SELECT series, participant_id AS cluster, label, n_items, n_pred, "
            "CAST(loss_sum AS DECIMAL(27, 18)) AS loss_sum, loss_scale, plateau FROM eval_class_cells"
        ).to_arrow_table()
        spark.createDataFrame(cells).cache().createOrReplaceTempView("riskcov_class_cells")
    return compute(con, spark, opts, series, participants, b, with_balanced)


def compute(
    con: duckdb.DuckDBPyConnection,
    spark: Any,
    opts: Options,
    series: list[Series],
    participants: list[int],
    b: int,
    with_balanced: bool = False,
    full: bool = True,
) -> engine.Results:
    """Every metric of every series for replicates 0..b over Spark's view riskcov_scored
    (series, cluster, confidence, loss, loss_scale; cluster = the participant ids drawn), and
    the class-balanced areas over riskcov_class_cells when `with_balanced`. Without `full`,
    only the summary scalars and Coverage@Risk (what `--group` reads: evaluation/spark_groups.py):
    no MAE@c, effective reliability, dominant points or replicate 0's curves."""
    for view, column, values in (
        ("riskcov_truncation", "c", [opts.area_coverage]),
        ("riskcov_coverages", "c", opts.coverage_grid),
        ("riskcov_alphas", "alpha", opts.alpha_grid),
        ("riskcov_costs", "cost", opts.costs),
    ):
        _frame(spark, {column: np.asarray(values, dtype=np.float64)}, view)
    rel = {
        "scored": "riskcov_scored",
        "samples": "riskcov_samples",
        "truncation": "riskcov_truncation",
        "coverages": "riskcov_coverages",
        "alphas": "riskcov_alphas",
        "costs": "riskcov_costs",
    }
    integral = exact_in_doubles(spark, len(participants))

    def sql(name: str, relations: dict[str, str]) -> str:
        return portable.render(name, "spark", relations, integral=integral)

    cells = materialized(spark.sql(sql("cells", rel)), "riskcov_cells")
    chunked = {**rel, "cells": "riskcov_cells", "totals": "riskcov_totals", "points": "riskcov_points",
               "class_cells": "riskcov_class_cells"}  # fmt: skip
    res = engine.Results(b + 1)
    shape = (max(s.index for s in series) + 1, b + 1)

    def put(
        name: str, sid: np.ndarray[Any, Any], rep: np.ndarray[Any, Any], values: np.ndarray[Any, Any]
    ) -> None:
        arr = res.array(name, shape)
        arr[sid.astype(np.intp), rep.astype(np.intp)] = values

    sizes = chunk_sizes(b, len(participants))
    for rep, pid, mult in sample_chunks(participants, b, opts.seed, sizes):
        weights = _frame(spark, {"replicate": rep.astype(np.int32), "cluster": pid.astype(np.int64),
                                 "multiplicity": mult.astype(np.int32)}, "riskcov_samples")  # fmt: skip
        # partitioned by replicate once: every later GROUP BY and window of the chunk has the
        # replicate among its keys, so none of them shuffles the weighted rows again (the
        # cells are broadcast to the weights: spark_session.settings)
        held = [
            materialized(weights.repartition("replicate"), "riskcov_samples"),
            materialized(spark.sql(sql("totals", chunked)), "riskcov_totals"),
            materialized(spark.sql(sql("points", chunked)), "riskcov_points"),
        ]
        m = arrow(spark, sql("summary", chunked))
        for name in engine.SUMMARY:
            put(name, m["series"], m["replicate"], m[name])
        put("aurc_achievable_interpolated", m["series"], m["replicate"], m["aurc_interpolated_points"])
        if full:
            dominant(con, spark, m, put)
        if with_balanced:
            bal = arrow(spark, sql("balanced", chunked))
            for key in ("aurc_ba", "augrc_ba"):
                put(key, bal["series"], bal["replicate"], bal[key])
        if full:
            mae = arrow(spark, sql("mae_at_coverage", chunked))
            for c in opts.coverage_grid:
                sel = mae["requested"] == c
                put(f"mae@{c!r}", mae["series"][sel], mae["replicate"][sel], mae["value"][sel])
                put(f"mae_achieved@{c!r}", mae["series"][sel], mae["replicate"][sel], mae["achieved"][sel])
        car = arrow(spark, sql("coverage_at_risk", chunked))
        for a in opts.alpha_grid:
            sel = car["alpha"] == a
            for col in ("coverage", "risk", "threshold"):
                put(f"car_{col}@{a!r}", car["series"][sel], car["replicate"][sel], car[col][sel])
            arr = res.scalars[f"car_coverage@{a!r}"]
            present = np.unique(m["replicate"]).astype(np.intp)
            block = arr[:, present]
            block[np.isnan(block)] = 0.0  # no qualifying point: coverage 0, not undefined
            arr[:, present] = block
        if full:
            # every replicate's best Phi_c: the value and its CI (sql/portable/effective_reliability.sql)
            phi = arrow(spark, sql("effective_reliability", chunked))
            cost_curves.store(res, series, opts.costs, phi)
            if rep[0] == 0:
                replicate_zero(con, spark, series, res, opts)
        for kept in held:  # this chunk's rows, released before the next chunk's are held
            released(kept)
    released(cells)
    engine.copy_aliases(series, res)
    return res


def chunk_sizes(b: int, clusters: int) -> list[int]:
    """Replicates per chunk for `b` replicates of `clusters` clusters: as many as keep the
    weight rows within WEIGHTS_PER_CHUNK, 1 to REPLICATES_PER_CHUNK (the draws do not depend on
    the chunks: bootstrap.draw_chunks).

    >>> chunk_sizes(200, 100_000), chunk_sizes(1200, 900), chunk_sizes(0, 10)
    ([50, 50, 50, 50], [500, 500, 500], [1])
    """
    per = max(1, min(REPLICATES_PER_CHUNK, WEIGHTS_PER_CHUNK // max(clusters, 1)))
    return [per] * -(-b // per) if b > 0 else [1]
