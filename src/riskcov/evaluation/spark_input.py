"""`evaluate --engine spark` on a table Spark reads where it lies (docs/spark.md): a Parquet
file or folder, a Delta folder, a URI Spark can open, or `table:NAME`. Nothing is ingested:
Spark checks the per-sample columns (docs/formats.md), picks the experiment, numbers the
sorted distinct clusters 1..C as the ingest does (so numpy's draws are the DuckDB engine's)
and builds the scored units itself; only C, the experiments' counts, the results and the
replicate-0 curves come back. The input is recorded by its name and a content fingerprint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from riskcov.bootstrap import memory
from riskcov.errors import InputError, UsageError
from riskcov.evaluation import (
    assembly,
    spark_calibrated,
    spark_checks,
    spark_engine,
    spark_groups,
    spark_session,
)
from riskcov.evaluation.options import Options
from riskcov.formats.per_sample.column_checks import TEXT, Source
from riskcov.formats.per_sample.header import plan_columns
from riskcov.ingest.inputs import CRITERIA, _options
from riskcov.metrics import portable
from riskcov.scoring.scored import Series
from riskcov.warehouse.duckdb_helpers import one

PREFIXES = ("table:", "delta:", "parquet:")
_EXPERIMENT = ("method", "seed", "split", "domain")
_LOSS = {"loss": "loss", "correct": "correct", "label_prediction": "label and prediction"}


def read_by_spark(opts: Options) -> bool:
    """Whether `evaluate` leaves its input where it lies: --engine spark and an --input that
    names a table, a Parquet or Delta path or a URI (a run id or a CSV/JSONL file is ingested)."""
    if opts.engine != "spark":
        return False
    return any(_where(spec) is not None for spec in opts.inputs)


def _where(spec: str) -> tuple[str, str] | None:
    """(reader, target) of a spec Spark reads: table, delta or parquet; None: not Spark's."""
    for prefix in PREFIXES:
        if spec.startswith(prefix):
            return prefix[:-1], spec[len(prefix) :]
    path = Path(spec)
    if path.is_dir():
        return ("delta" if (path / "_delta_log").is_dir() else "parquet"), spec
    if "://" in spec or spec.endswith(".parquet"):
        return "parquet", spec
    return None


def evaluate(con: duckdb.DuckDBPyConnection, opts: Options) -> dict[str, Any]:
    """The artifact of evaluating opts.inputs[0] as read by Spark."""
    if len(opts.inputs) != 1:
        raise UsageError(
            "--engine spark reads one --input where it lies; a paired comparison takes two "
            "ingested runs (riskcov ingest, then --input RUN_ID twice)"
        )
    if opts.loss not in (None, "given"):
        raise UsageError(f"--loss {opts.loss} does not apply to per-sample runs; choose given")
    spark_engine.check(opts)
    spec = opts.inputs[0]
    reader, target = _where(spec) or ("parquet", spec)
    spark = spark_session.session(opts.spark_master, opts.spark_conf)
    df = _read(spark, reader, target, spec)
    plan = plan_columns(Path(spec), [Source(f.name, f.name, TEXT) for f in df.schema.fields])
    spark_checks.types(spec, df.schema, plan)
    if opts.group is not None:
        spark_groups.check(spec, opts.group, plan)
    stem = target.rsplit(".", 1)[-1] if reader == "table" else Path(target.rstrip("/")).stem
    df.createOrReplaceTempView("riskcov_input")
    group = None if opts.group is None else spark_checks.group_text(df.schema, opts.group)
    spark.sql(spark_checks.rows_sql(df.columns, plan, stem, group)).createOrReplaceTempView("riskcov_rows")
    experiments, fingerprint = spark_checks.experiments(spark, spec)
    fields = _choose(spec, experiments, opts)
    chosen = spark.table("riskcov_rows").filter(
        " AND ".join(f"{k} = {spark_checks.literal(fields[k])}" for k in _EXPERIMENT)
    )
    chosen.createOrReplaceTempView("riskcov_chosen")
    spark_checks.validate(spark, spec, plan)
    group_values = None if opts.group is None else spark_groups.values(spark, spec, opts.group)
    choice = spark_calibrated.choose(con, opts, plan)
    kept = [Series(i, 0, c, i) for i, c in enumerate(choice.csfs)]
    confidence = {s.csf.name: spark_calibrated.confidence_sql(s.csf, plan, spec, df.columns) for s in kept}
    spark_calibrated.check(spark, spec, choice.csfs, confidence)
    # the clusters, scored units and class cells are held as rows (local checkpoints), read by
    # every chunk's queries: a cached DataFrame was not matched inside them, and each chunk's
    # oracle re-read the input and renumbered the clusters (spark_engine.materialized)
    numbered = spark.sql(
        "SELECT cluster, CAST(row_number() OVER (ORDER BY cluster) AS BIGINT) AS cluster_no "
        "FROM (SELECT DISTINCT cluster FROM riskcov_chosen) AS d"
    )
    held = [spark_engine.materialized(numbered, "riskcov_clusters")]
    # the class-balanced areas when every sample has a label (as metrics/balanced.py decides)
    with_label = "label" in df.columns and spark_checks.count(spark, "raw_label IS NULL") == 0
    label = "r.raw_label AS label" if with_label else "NULL AS label"
    label += "" if group is None else ", r.grp"
    scored = spark.sql(
        " UNION ALL ".join(
            f"SELECT {s.index} AS series, k.cluster_no AS cluster, CASE WHEN r.abstained THEN NULL "
            f"ELSE {confidence[s.csf.name]} END AS confidence, "
            "CASE WHEN r.abstained THEN NULL ELSE r.loss END AS loss, CAST(1.0 AS DOUBLE) AS loss_scale, "
            f"{label} "
            "FROM riskcov_chosen AS r JOIN riskcov_clusters AS k ON k.cluster = r.cluster"
            for s in kept
        )
    )
    held.append(spark_engine.materialized(scored, "riskcov_scored"))
    # the sorted distinct clusters, numbered 1..C in Spark: the draws need only C
    n_clusters = spark_checks.count(spark, "true", "riskcov_clusters")
    b = max(opts.bootstrap_resamples, 0)
    memory.check(b, len(kept), len(opts.coverage_grid), len(opts.alpha_grid))
    if with_label:
        relations = {"labelled": "riskcov_scored"}
        cells = spark.sql(portable.render("class_cells", "spark", relations))
        held.append(spark_engine.materialized(cells, "riskcov_class_cells"))
    res = spark_engine.compute(con, spark, opts, kept, list(range(1, n_clusters + 1)), b, with_label)
    row = one(con.execute("SELECT n_total, k_total FROM eval_totals0 WHERE series = 0"))
    n, k = (int(row[0]), int(row[1])) if row else (0, 0)
    population = {
        "participants_total": n_clusters,
        "participants_included": n_clusters,
        "participants_failed": 0,
        "items_total": n,
        "items_predicted": k,
    }
    entry = {
        "path": spec,
        "run_id": None,
        "git_commit": None,
        "mode": None,
        "sha256": None,
        "experiment_id": None,
        **fields,
        "calibration": spark_calibrated.prob_calibration(spark, df.columns),
        "read_by": "spark",
        "fingerprint": fingerprint,
    }
    loss = {"name": "given", "definition": "as given", "raw_multiplier": 1}
    art = assembly.artifact_of(opts, res, kept, [entry], population, loss, choice.skipped, {})
    if opts.group is not None and group_values is not None:  # last: it replaces riskcov_scored
        art["options"]["group"] = opts.group
        art["groups"] = spark_groups.evaluate(
            con, spark, opts, opts.group, group_values, kept, art["confidence_variants"],
            list(range(1, n_clusters + 1)), b,
        )  # fmt: skip
    if choice.calibration is not None:  # which calibrator made the calibrated variants
        art["calibrator"] = choice.calibration
        art["options"]["calibration"] = opts.calibration
    for kept_rows in held:
        spark_engine.released(kept_rows)
    return art


def _read(spark: Any, reader: str, target: str, spec: str) -> Any:
    """The input as a Spark DataFrame, or an InputError naming it with Spark's first line.
    Spark reports some failures as a bare Java exception (Py4JJavaError: e.g. a Delta folder
    without Delta Lake's jars in the session, DATA_SOURCE_NOT_FOUND); its message is the Java
    exception's, without the class name."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    try:
        if reader == "table":
            return spark.table(target)
        if reader == "delta":
            return spark.read.format("delta").load(target)
        return spark.read.parquet(target)
    except (PySparkException, Py4JJavaError) as exc:
        text = str(exc.java_exception) if isinstance(exc, Py4JJavaError) else str(exc)
        if isinstance(exc, Py4JJavaError):
            text = text.split(": ", 1)[-1]
        first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
        raise InputError(f"--input {spec}: Spark cannot read it ({reader}): {first}") from None


def _choose(spec: str, experiments: list[dict[str, Any]], opts: Options) -> dict[str, Any]:
    """The one experiment (method, seed, split, domain) the criteria pick, as evaluate picks
    among an ingested run's experiments."""
    criteria = opts.criteria
    if criteria["--mode"]:
        raise UsageError(
            f"--input {spec}: a per-sample table has no modes; choose with --method, --split, ..."
        )
    rows = [{**e, "loss_kind": "given"} for e in experiments]
    available = _options(rows)
    for flag, column in CRITERIA[1:]:
        values = criteria[flag]
        if not values:
            continue
        if len(values) > 1:
            raise UsageError(f"{flag} given {len(values)} times for one --input read by Spark")
        kept = [r for r in rows if str(r[column]) == values[0]]
        if not kept:
            raise InputError(
                f"--input {spec}: no experiment with {column} {values[0]} (available: {available})"
            )
        rows = kept
    if len(rows) > 1:
        raise UsageError(
            f"--input {spec}: {len(rows)} experiments; choose one with {_options(rows, varying=True)}"
        )
    return {k: rows[0][k] for k in _EXPERIMENT}
