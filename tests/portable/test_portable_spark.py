"""Spark (the `pytest -m spark` job of .ci/run; the default run leaves it out): one local[2]
session for the module. Every rendered metric equals the DuckDB macros on small random data
(ties, abstentions, 0/1, integer and continuous losses, bootstrap replicates; integer losses'
points bit for bit, the rest within 1e-13 relative), and
`evaluate --engine spark` gives DuckDB's artifact to 1e-12 (relative for percentages), CIs
included, on a per-sample file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from portable_support import AREA_C, PORTABLE_COLUMNS, load_inputs, make_data, mismatches, reference, wrap
from spark_support import EXTRA, close, evaluate_cli, samples_parquet

from riskcov.metrics import portable

pytestmark = pytest.mark.spark
pyspark = pytest.importorskip("pyspark", reason="the spark extra: pip install 'riskcov[spark]'")


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from riskcov.evaluation.spark_session import session

    s = session("local[2]")
    yield s
    s.stop()


def test_every_rendered_metric_equals_the_duckdb_macros(spark: Any) -> None:
    data = make_data(5, clusters=15, replicates=3)
    con = duckdb.connect()
    load_inputs(con, data)
    want = reference(con)
    for table in ("scored", "labelled", "samples", "truncation", "coverages", "alphas", "costs"):
        spark.createDataFrame(con.sql(f"SELECT * FROM {table}").to_arrow_table()).createOrReplaceTempView(
            table
        )
    assert AREA_C == 0.5
    for name in PORTABLE_COLUMNS:
        rows = spark.sql(wrap(name, portable.render(name, "spark"))).collect()
        got = [tuple(r) for r in rows]
        # integer losses: points, MAE and Coverage@Risk bit for bit; areas are float sums whose
        # order Spark's window and the macros' ordered aggregate may not share
        exact = {0, 1} if name not in ("summary", "balanced") else set()
        assert mismatches(name, got, want[name], exact, rel=1e-13) == [], name


def test_evaluate_engine_spark_equals_duckdb(tmp_path: Path, spark: Any) -> None:
    """The same Parquet through DuckDB (ingested) and Spark (read where it lies, and as an
    ingested run): equal artifacts to 1e-12, CIs included."""
    import numpy as np

    data = tmp_path / "runs.parquet"
    samples_parquet(data, np.random.default_rng(7), 90, [0.0, 0.25, 1 / 3, 1.0])
    arts = {}
    for name, engine in (("duckdb", "duckdb"), ("spark", "spark")):
        res, arts[name] = evaluate_cli(tmp_path, name, engine, str(data), "--method", "m", *EXTRA)
        assert res.exit_code == 0, res.output
    # the old path: an ingested run's scored units shipped to Spark
    res, arts["ingested"] = evaluate_cli(tmp_path, "duckdb", "spark", "runs", "--method", "m", *EXTRA)
    assert res.exit_code == 0, res.output
    spark_input = arts["spark"]["inputs"][0]
    assert spark_input["read_by"] == "spark" and spark_input["experiment_id"] is None
    assert spark_input["fingerprint"]["rows"] == 90
    assert (spark_input["method"], spark_input["seed"], spark_input["split"]) == ("m", 0, "test")
    assert arts["duckdb"]["inputs"][0]["method"] == "m"
    for other in ("spark", "ingested"):
        assert arts[other]["options"].pop("engine") == "spark"
        for csf, variant in arts[other]["confidence_variants"].items():
            assert "curve_grid" in variant, (other, csf, sorted(variant))
        diffs: list[str] = []
        for key in ("population", "confidence_variants", "loss", "rank_stability"):
            close(arts["duckdb"][key], arts[other][key], key, diffs)
        assert diffs == [], other
    variant = arts["duckdb"]["confidence_variants"]["confidence"]
    assert variant["bootstrap"]["n_resamples"] == 8
    assert variant["effective_reliability"]["1.00"]["value"] is not None
    assert len(variant["curve_grid"]["coverage"]) == 11
    assert variant["aurc_ba"] > 0 and variant["bootstrap"]["ci95"]["aurc_ba"][0] < variant["aurc_ba"]
    # the stored rows land in the local warehouse as with DuckDB
    con = duckdb.connect(str(tmp_path / "spark.duckdb"), read_only=True)
    stored = con.execute("SELECT count(*), count(DISTINCT csf) FROM evaluation_metrics").fetchone()
    runs = con.execute("SELECT count(*) FROM runs").fetchone()
    con.close()
    assert stored is not None and stored[0] > 0 and stored[1] == 2
    assert runs == (0,)  # nothing ingested
    # the last chunk's totals and points are held rows: a query reading them plans a scan, not
    # their recomputation from the cells and weights (a cached DataFrame was not matched)
    for view in ("riskcov_totals", "riskcov_points"):
        plan = spark.sql(f"SELECT * FROM {view}")._jdf.queryExecution().executedPlan().toString()
        assert "Exchange" not in plan and "Window" not in plan, (view, plan)


def test_spark_input_bad_value_is_one_line_and_stores_nothing(tmp_path: Path, spark: Any) -> None:
    import numpy as np

    data = tmp_path / "bad.parquet"
    samples_parquet(data, np.random.default_rng(3), 30, [0.0, 1.0, -1.0])
    res, _ = evaluate_cli(tmp_path, "bad", "spark", str(data), "--method", "m")
    assert res.exit_code == 1, res.output
    con = duckdb.connect()
    first = con.execute(
        f"SELECT min(CAST(sample_id AS VARCHAR)), count(*) FROM '{data}' WHERE loss < 0 AND method = 'm'"
    ).fetchone()
    assert first is not None
    line = f"bad.parquet: sample {first[0]}: column loss: not a finite number >= 0 ({first[1]} sample(s))"
    assert line in res.output and len(res.output.strip().splitlines()) == 1, res.output
    res, _ = evaluate_cli(tmp_path, "bad", "spark", str(data))
    assert res.exit_code == 2 and "choose one with --method (m, other)" in res.output, res.output
    wh = duckdb.connect(str(tmp_path / "bad.duckdb"), read_only=True)
    assert wh.execute("SELECT count(*) FROM evaluations").fetchone() == (0,)
    wh.close()


def test_spark_fingerprint_follows_content_not_layout(tmp_path: Path, spark: Any) -> None:
    from riskcov.evaluation import spark_checks
    from riskcov.formats.per_sample.column_checks import TEXT, Source
    from riskcov.formats.per_sample.header import plan_columns

    rows = [(i, 0.1 * (i % 4), float(i % 2)) for i in range(12)]
    prints = []
    for variant in ("one", "shuffled", "changed"):
        folder = tmp_path / variant
        data = list(reversed(rows)) if variant == "shuffled" else list(rows)
        if variant == "changed":
            data[5] = (5, 0.1, 1.0 - data[5][2])
        df = spark.createDataFrame(data, "sample_id LONG, confidence DOUBLE, loss DOUBLE")
        df.repartition(3 if variant == "shuffled" else 1).write.parquet(str(folder))
        read = spark.read.parquet(str(folder))
        read.createOrReplaceTempView("riskcov_input")
        plan = plan_columns(folder, [Source(c, c, TEXT) for c in read.columns])
        spark.sql(spark_checks.rows_sql(read.columns, plan, variant)).createOrReplaceTempView("riskcov_rows")
        prints.append(spark_checks.experiments(spark, str(folder))[1])
    assert prints[0] == prints[1] and prints[0]["rows"] == 12
    assert prints[2]["xxhash64_sum"] != prints[0]["xxhash64_sum"]


def test_delta_without_its_jars_is_one_line_naming_the_input(tmp_path: Path, spark: Any) -> None:
    """A Delta folder (one with _delta_log/) is read as Delta; without Delta Lake's jars in the
    session (this machine reaches no Maven repository: docs/spark.md) Spark cannot, and the
    evaluation stops with one line naming the input and Spark's reason, storing nothing."""
    folder = tmp_path / "preds"
    (folder / "_delta_log").mkdir(parents=True)
    res, _ = evaluate_cli(tmp_path, "delta", "spark", str(folder))
    assert res.exit_code == 1, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --input {folder}: Spark cannot read it (delta): ")
    assert "Failed to find the data source: delta" in lines[0], lines[0]
    wh = duckdb.connect(str(tmp_path / "delta.duckdb"), read_only=True)
    assert wh.execute("SELECT count(*) FROM evaluations").fetchone() == (0,)
    wh.close()
