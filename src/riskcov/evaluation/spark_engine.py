"""`riskcov evaluate --engine spark`: the replicates' metrics computed on Apache Spark by the
portable queries of sql/portable/ (docs/spark.md), everything else as with DuckDB.

The scored units are a Spark view: an ingested run's eval_scored shipped once as Arrow
(`compute_all`), or a table Spark reads where it lies (evaluation/spark_input.py). The
bootstrap's multiplicities are drawn by numpy exactly as the DuckDB path draws them
(bootstrap.sample_chunks) and shipped as Arrow, one chunk of replicates at a time. Per chunk
Spark computes the totals and working points (cached), then the summary scalars, MAE@c and
Coverage@Risk, and for replicate 0 effective reliability; the values come back into the same
`engine.Results` the DuckDB engine fills, so the artifact and the stored rows are made by the
same code. What reads every point of a replicate locally (the dominant points of 0/1 losses,
the achievable hull of replicate 0; docs/metrics.md) gets those points back from Spark, for
the series that need them only.
"""

from __future__ import annotations

import os
from typing import Any

import duckdb
import numpy as np

from riskcov.bootstrap import sample_chunks
from riskcov.errors import UsageError
from riskcov.evaluation.options import SPARK_INSTALL, Options
from riskcov.metrics import cost_curves, curve_grid, engine, interpolated, portable
from riskcov.metrics.hull import achievable
from riskcov.scoring.scored import Series
from riskcov.warehouse.duckdb_helpers import temp_table

# replicates per chunk shipped to Spark: one chunk's weights are clusters x this many rows
REPLICATES_PER_CHUNK = 500


def session(master: str | None) -> Any:
    """A SparkSession: Spark Connect when SPARK_REMOTE is set, else `master` (local[*])."""
    try:
        import pyarrow  # noqa: F401
        from pyspark.sql import SparkSession
    except ImportError:
        raise UsageError(SPARK_INSTALL) from None
    builder = SparkSession.builder.appName("riskcov")
    if os.environ.get("SPARK_REMOTE"):
        builder = builder.remote(os.environ["SPARK_REMOTE"])
    else:
        builder = builder.master(master or "local[*]").config("spark.ui.enabled", "false")
    return (
        builder.config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )


def _frame(spark: Any, columns: dict[str, np.ndarray[Any, Any]], view: str) -> Any:
    import pyarrow as pa

    df = spark.createDataFrame(pa.table(columns))
    df.createOrReplaceTempView(view)
    return df


def _arrow(spark: Any, sql: str) -> dict[str, np.ndarray[Any, Any]]:
    """A query's rows as float arrays (NULL -> NaN), through Arrow (never pandas: NULLs stay NULLs)."""
    import pyarrow as pa

    table = spark.sql(sql).toArrow()
    return {
        name: table.column(name).cast(pa.float64()).fill_null(np.nan).to_numpy()
        for name in table.column_names
    }


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
    spark = session(opts.spark_master)
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
) -> engine.Results:
    """Every metric of every series for replicates 0..b over Spark's view riskcov_scored
    (series, cluster, confidence, loss, loss_scale; cluster = the participant ids drawn), and
    the class-balanced areas over riskcov_class_cells when `with_balanced`."""
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
    cells = spark.sql(portable.render("cells", "spark", rel))
    cells.cache().createOrReplaceTempView("riskcov_cells")
    chunked = {**rel, "cells": "riskcov_cells", "totals": "riskcov_totals", "points": "riskcov_points",
               "class_cells": "riskcov_class_cells"}  # fmt: skip
    res = engine.Results(b + 1)
    shape = (max(s.index for s in series) + 1, b + 1)

    def put(
        name: str, sid: np.ndarray[Any, Any], rep: np.ndarray[Any, Any], values: np.ndarray[Any, Any]
    ) -> None:
        arr = res.scalars.setdefault(name, np.full(shape, np.nan))
        arr[sid.astype(np.intp), rep.astype(np.intp)] = values

    sizes = [REPLICATES_PER_CHUNK] * -(-b // REPLICATES_PER_CHUNK) if b > 0 else 1
    for rep, pid, mult in sample_chunks(participants, b, opts.seed, sizes):
        _frame(spark, {"replicate": rep.astype(np.int32), "cluster": pid.astype(np.int64),
                       "multiplicity": mult.astype(np.int32)}, "riskcov_samples")  # fmt: skip
        totals = spark.sql(portable.render("totals", "spark", chunked)).cache()
        totals.createOrReplaceTempView("riskcov_totals")
        points = spark.sql(portable.render("points", "spark", chunked)).cache()
        points.createOrReplaceTempView("riskcov_points")
        m = _arrow(spark, portable.render("summary", "spark", chunked))
        for name in engine.SUMMARY:
            put(name, m["series"], m["replicate"], m[name])
        put("aurc_achievable_interpolated", m["series"], m["replicate"], m["aurc_interpolated_points"])
        binary = sorted({int(s) for s, yes in zip(m["series"], m["losses_binary"], strict=True) if yes == 1})
        _dominant(con, spark, binary, put)
        if with_balanced:
            bal = _arrow(spark, portable.render("balanced", "spark", chunked))
            for key in ("aurc_ba", "augrc_ba"):
                put(key, bal["series"], bal["replicate"], bal[key])
        mae = _arrow(spark, portable.render("mae_at_coverage", "spark", chunked))
        for c in opts.coverage_grid:
            sel = mae["requested"] == c
            put(f"mae@{c!r}", mae["series"][sel], mae["replicate"][sel], mae["value"][sel])
            put(f"mae_achieved@{c!r}", mae["series"][sel], mae["replicate"][sel], mae["achieved"][sel])
        car = _arrow(spark, portable.render("coverage_at_risk", "spark", chunked))
        for a in opts.alpha_grid:
            sel = car["alpha"] == a
            for col in ("coverage", "risk", "threshold"):
                put(f"car_{col}@{a!r}", car["series"][sel], car["replicate"][sel], car[col][sel])
            arr = res.scalars[f"car_coverage@{a!r}"]
            present = np.unique(m["replicate"]).astype(np.intp)
            block = arr[:, present]
            block[np.isnan(block)] = 0.0  # no qualifying point: coverage 0, not undefined
            arr[:, present] = block
        # every replicate's best Phi_c: the value and its CI (sql/portable/effective_reliability.sql)
        phi = _arrow(spark, portable.render("effective_reliability", "spark", chunked))
        cost_curves.store(res, series, opts.costs, phi)
        if rep[0] == 0:
            _replicate_zero(con, spark, series, res, opts, chunked)
        totals.unpersist()
        points.unpersist()
    cells.unpersist()
    engine.copy_aliases(series, res)
    return res


def _dominant(con: duckdb.DuckDBPyConnection, spark: Any, binary: list[int], put: Any) -> None:
    """aurc_achievable_interpolated of the 0/1-loss series (their dominant points, found in
    numpy by metrics/interpolated.py over this chunk's points, brought back from Spark)."""
    if not binary:
        return
    ids = ", ".join(str(s) for s in binary)
    pts = _arrow(
        spark,
        "SELECT series, replicate, plateau, k_cum, l_cum, coverage, generalized_risk "
        f"FROM riskcov_points WHERE series IN ({ids})",
    )
    tot = _arrow(spark, f"SELECT series, replicate, loss_scale FROM riskcov_totals WHERE series IN ({ids})")
    con.register("_spark_points", {k: v for k, v in pts.items()})
    con.register("_spark_totals", {k: v for k, v in tot.items()})
    try:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE eval_points AS SELECT CAST(series AS BIGINT) AS series, "
            "CAST(replicate AS INTEGER) AS replicate, CAST(plateau AS BIGINT) AS plateau, "
            "CAST(k_cum AS BIGINT) AS k_cum, l_cum, coverage, generalized_risk FROM _spark_points"
        )
        con.execute(
            "CREATE OR REPLACE TEMP TABLE eval_totals AS SELECT CAST(series AS BIGINT) AS series, "
            "CAST(replicate AS INTEGER) AS replicate, loss_scale FROM _spark_totals"
        )
    finally:
        con.unregister("_spark_points")
        con.unregister("_spark_totals")
    out = interpolated.compute(con, binary, "plateau-trapezoid")
    con.execute("DROP TABLE eval_points")
    if out is not None:
        put(
            "aurc_achievable_interpolated",
            out["series"],
            out["replicate"],
            out["aurc_achievable_interpolated"],
        )


def _replicate_zero(
    con: duckdb.DuckDBPyConnection,
    spark: Any,
    series: list[Series],
    res: engine.Results,
    opts: Options,
    chunked: dict[str, str],
) -> None:
    """Replicate 0's curves from Spark's points, its totals as local eval_totals0 (as the
    DuckDB engine keeps them) and the achievable hull (metrics/hull.py) over them."""
    cols = (
        spark.sql(
            f"SELECT series, {', '.join(engine.CURVE_COLUMNS)} FROM riskcov_points WHERE replicate = 0 "
            "ORDER BY series, plateau"
        )
        .toArrow()
        .to_pydict()
    )
    owner = cols.pop("series")
    res.curves.update(
        {
            s.index: {k: [v for o, v in zip(owner, cols[k], strict=True) if o == s.index] for k in cols}
            for s in series
        }
    )
    _totals0(con, spark, series)
    res.achievable = achievable(con, res.curves, opts.area_coverage)
    if opts.curve_points:  # the curve at K coverages, read from replicate 0's points (local now)
        temp_table(con, "eval_points", _curve_rows(res.curves))
        cmax = {s.index: float(res.scalars["cmax"][s.index, 0]) for s in series}
        res.curve_grids = curve_grid.sample(con, series, cmax, opts.curve_points)
        con.execute("DROP TABLE eval_points")


def _curve_rows(curves: dict[int, dict[str, list[Any]]]) -> dict[str, np.ndarray[Any, Any]]:
    """Replicate 0's points as columns (series, replicate, plateau, coverage and risks)."""
    sids = [s for s, c in curves.items() for _ in c["plateau"]]
    out: dict[str, np.ndarray[Any, Any]] = {
        "series": np.asarray(sids, dtype=np.int64),
        "replicate": np.zeros(len(sids), dtype=np.int32),
    }
    for k, dtype in (("plateau", np.int64), ("coverage", np.float64), ("selective_risk", np.float64),
                     ("generalized_risk", np.float64)):  # fmt: skip
        out[k] = np.asarray([v for c in curves.values() for v in c[k]], dtype=dtype)
    return out


def _totals0(con: duckdb.DuckDBPyConnection, spark: Any, series: list[Series]) -> None:
    """TEMP TABLE eval_totals0 from Spark's replicate-0 totals, through the macro the DuckDB
    engine's totals end in (rc_totals_weighted): per population (input) N, K and the raw loss
    sum, whether its losses are all integers, and each series' loss scale."""
    tot = _arrow(
        spark,
        "SELECT t.series, t.n_total, t.k_total, CAST(t.l_total AS DOUBLE) AS l_total, t.loss_scale, "
        "i.integral FROM riskcov_totals AS t JOIN (SELECT series, coalesce(min(CASE WHEN loss = floor(loss) "
        "THEN 1 ELSE 0 END), 1) AS integral FROM riskcov_scored GROUP BY series) AS i ON i.series = t.series "
        "WHERE t.replicate = 0 ORDER BY t.series",
    )
    population = {s.computed: s.input_no for s in series}
    pops = np.asarray([population[int(s)] for s in tot["series"]], dtype=np.int64)
    first = np.unique(pops, return_index=True)[1]  # every series of an input has the same units
    temp_table(con, "eval_spark_series", {"series": tot["series"].astype(np.int64), "population": pops,
                                          "loss_scale": tot["loss_scale"]})  # fmt: skip
    temp_table(
        con,
        "eval_spark_weighted",
        {
            "population": pops[first],
            "replicate": np.zeros(len(first), dtype=np.int32),
            "n_total": tot["n_total"][first].astype(np.int64),
            "k_total": tot["k_total"][first].astype(np.int64),
            "l_total": tot["l_total"][first],
            "integral": tot["integral"][first] == 1,
        },
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE eval_totals0 AS "
        "FROM rc_totals_weighted('eval_spark_series', 'eval_spark_weighted')"
    )
