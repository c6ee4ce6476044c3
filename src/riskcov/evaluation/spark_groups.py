"""`evaluate --group COLUMN --engine spark` on a table Spark reads where it lies
(evaluation/spark_input.py): the groups' metrics and coverage gaps of evaluation/groups.py,
computed on Spark. The samples' group values are text, as the ingest stores them; the groups'
scored units are a Spark view (series = CSF x group), their metrics the portable queries'
summary and Coverage@Risk over the evaluation's own cluster draws (spark_engine.compute,
same seed and clusters), and each group's coverage at a CSF's Coverage@Risk(alpha) threshold
the portable twin of rc_group_coverage (sql/portable/group_coverage.sql). The block is
assembled by the same code as with DuckDB (groups.group_metrics, groups.gaps_of).
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np

from riskcov.errors import InputError, UsageError
from riskcov.evaluation import groups, spark_engine
from riskcov.evaluation.options import GROUP_COLUMNS, Options
from riskcov.formats.per_sample.header import Plan
from riskcov.metrics import portable
from riskcov.scoring.scored import Series


def check(spec: str, column: str, plan: Plan) -> None:
    """UsageError unless `column` is label, prediction or an attribute of the input (as
    groups.check_column for an ingested run)."""
    names = sorted(s.name for s in plan.attributes)
    if column not in GROUP_COLUMNS and column not in names:
        raise UsageError(
            f"--group {column}: not a column of {spec}; choose one of " + ", ".join([*GROUP_COLUMNS, *names])
        )


def values(spark: Any, spec: str, column: str) -> list[str]:
    """The chosen experiment's group values (riskcov_chosen's `grp`), sorted as text; an
    InputError naming the lowest sample id without one (Spark has no row order)."""
    missing = spark.sql(
        "SELECT min(CAST(sample_id AS STRING)) FROM riskcov_chosen WHERE grp IS NULL"
    ).collect()[0][0]
    if missing is not None:
        raise InputError(f"--group {column}: sample {missing} of {spec} has no {column}")
    return [str(r[0]) for r in spark.sql("SELECT DISTINCT grp FROM riskcov_chosen ORDER BY grp").collect()]


def evaluate(
    con: duckdb.DuckDBPyConnection,
    spark: Any,
    opts: Options,
    column: str,
    group_values: list[str],
    series: list[Series],
    variants: dict[str, Any],
    participants: list[int],
    b: int,
) -> dict[str, Any]:
    """The artifact's `groups` block. Spark's view riskcov_scored holds the evaluation's
    series with each unit's `grp`; it is kept as riskcov_grouped and replaced by the groups'
    units."""
    import pyarrow as pa

    spark.table("riskcov_scored").createOrReplaceTempView("riskcov_grouped")
    names = list(variants)
    of = {name: next(s.computed for s in series if s.csf.name == name) for name in names}
    computed = sorted(set(of.values()))
    g_count = len(group_values)
    index = {
        "series": pa.array([c for c in computed for _ in group_values], pa.int64()),
        "grp": pa.array([g for _ in computed for g in group_values], pa.string()),
        "per": pa.array(np.arange(len(computed) * g_count), pa.int64()),
    }
    spark.createDataFrame(pa.table(index)).createOrReplaceTempView("riskcov_group_series")
    units = spark.sql(
        "SELECT CAST(i.per AS INT) AS series, s.cluster, s.confidence, s.loss, s.loss_scale "
        "FROM riskcov_grouped AS s JOIN riskcov_group_series AS i ON i.series = s.series AND i.grp = s.grp"
    )
    held = spark_engine.materialized(units, "riskcov_scored")
    per = [Series(k, 0, series[0].csf, k) for k in range(len(computed) * g_count)]
    res = spark_engine.compute(con, spark, opts, per, participants, b, full=False)
    sizes = {
        str(r[0]): int(r[1])
        for r in spark.sql(
            f"SELECT grp, count(*) FROM riskcov_grouped WHERE series = {int(computed[0])} GROUP BY grp"
        ).collect()
    }
    metrics: dict[str, Any] = {}
    for name in names:
        metrics[name] = {
            value: groups.group_metrics(
                res, computed.index(of[name]) * g_count + g, sizes.get(value, 0), b, opts.alpha_grid
            )
            for g, value in enumerate(group_values)
        }
    rows = groups.threshold_rows(names, of, variants, opts.alpha_grid)
    thresholds = {
        "series": pa.array([r[0] for r in rows], pa.int64()),
        "alpha": pa.array([r[1] for r in rows], pa.float64()),
        "threshold": pa.array([r[2] for r in rows], pa.float64()),  # None stays NULL
    }
    spark.createDataFrame(pa.table(thresholds)).createOrReplaceTempView("riskcov_group_thresholds")
    relations = {"grouped": "riskcov_grouped", "thresholds": "riskcov_group_thresholds"}
    query = portable.render("group_coverage", "spark", relations)
    coverage = sorted(tuple(r) for r in spark.sql(query).collect())
    spark_engine.released(held)
    return {
        "column": column,
        "values": group_values,
        "metrics": metrics,
        "coverage_gaps": groups.gaps_of(names, of, variants, opts.alpha_grid, coverage),
    }
