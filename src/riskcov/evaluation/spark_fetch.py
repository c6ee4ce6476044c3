"""What `evaluate --engine spark` reads back from Spark into this process (docs/spark.md):
query rows through Arrow, the working points of 0/1-loss series for their dominant points
(metrics/interpolated.py), and replicate 0's curves and totals for the achievable hull and
`--curve-points`, computed locally by the same DuckDB code as the DuckDB engine's."""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np

from riskcov.evaluation.options import Options
from riskcov.metrics import curve_grid, engine, interpolated
from riskcov.metrics.hull import achievable
from riskcov.scoring.scored import Series
from riskcov.warehouse.duckdb_helpers import registered, temp_table

# working points per fetch from Spark to this process (the dominant points of 0/1 losses)
POINTS_PER_FETCH = 2_000_000


def arrow(spark: Any, sql: str) -> dict[str, np.ndarray[Any, Any]]:
    """A query's rows as float arrays (NULL -> NaN), through Arrow (never pandas: NULLs stay NULLs)."""
    import pyarrow as pa

    table = spark.sql(sql).toArrow()
    return {
        name: table.column(name).cast(pa.float64()).fill_null(np.nan).to_numpy()
        for name in table.column_names
    }


def dominant(
    con: duckdb.DuckDBPyConnection, spark: Any, m: dict[str, np.ndarray[Any, Any]], put: Any
) -> None:
    """aurc_achievable_interpolated of the 0/1-loss series of summary rows `m` (their dominant
    points, found in numpy by metrics/interpolated.py over this chunk's points, brought back
    from Spark). The points come back a slice of replicates at a time, at most
    POINTS_PER_FETCH rows each as the summary's n_points count them: all of a chunk's points at
    once (~13 M rows at 100,000 samples x 200 replicates) ran the driver's JVM out of heap."""
    sel = m["losses_binary"] == 1
    binary = sorted({int(s) for s in m["series"][sel]})
    if not binary:
        return
    ids = ", ".join(str(s) for s in binary)
    # every replicate of the chunk (one without points still gets its area, 0)
    replicates, block = np.unique(m["replicate"][sel], return_inverse=True)
    rows = np.bincount(block, weights=m["n_points"][sel], minlength=len(replicates))
    for first, last in _slices(replicates, rows, POINTS_PER_FETCH):
        where = f"series IN ({ids}) AND replicate BETWEEN {first} AND {last}"
        pts = arrow(
            spark,
            f"SELECT series, replicate, plateau, k_cum, l_cum, coverage, generalized_risk "
            f"FROM riskcov_points WHERE {where}",
        )
        tot = arrow(spark, f"SELECT series, replicate, loss_scale FROM riskcov_totals WHERE {where}")
        with registered(con, "_spark_points", pts), registered(con, "_spark_totals", tot):
            con.execute(
                "CREATE OR REPLACE TEMP TABLE eval_points AS SELECT CAST(series AS BIGINT) AS series, "
                "CAST(replicate AS INTEGER) AS replicate, CAST(plateau AS BIGINT) AS plateau, "
                "CAST(k_cum AS BIGINT) AS k_cum, l_cum, coverage, generalized_risk FROM _spark_points"
            )
            con.execute(
                "CREATE OR REPLACE TEMP TABLE eval_totals AS SELECT CAST(series AS BIGINT) AS series, "
                "CAST(replicate AS INTEGER) AS replicate, loss_scale FROM _spark_totals"
            )
        del pts
        out = interpolated.compute(con, binary, "plateau-trapezoid")
        con.execute("DROP TABLE eval_points")
        if out is not None:
            put(
                "aurc_achievable_interpolated",
                out["series"],
                out["replicate"],
                out["aurc_achievable_interpolated"],
            )


def _slices(
    replicates: np.ndarray[Any, Any], rows: np.ndarray[Any, Any], budget: int
) -> list[tuple[int, int]]:
    """Consecutive runs of `replicates` (ascending) whose `rows` add up to at most `budget`
    (a replicate with more rows than that is a run of its own).

    >>> _slices(np.array([0, 1, 2, 3]), np.array([5, 5, 20, 1]), 10)
    [(0, 1), (2, 2), (3, 3)]
    """
    out: list[tuple[int, int]] = []
    start, total = 0, 0
    for i, n in enumerate(rows.astype(np.int64).tolist()):
        if i > start and total + n > budget:
            out.append((int(replicates[start]), int(replicates[i - 1])))
            start, total = i, 0
        total += n
    if len(rows):
        out.append((int(replicates[start]), int(replicates[-1])))
    return out


def replicate_zero(
    con: duckdb.DuckDBPyConnection,
    spark: Any,
    series: list[Series],
    res: engine.Results,
    opts: Options,
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
    tot = arrow(
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
