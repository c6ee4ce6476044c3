"""Spark (the `pytest -m spark` job of .ci/run; the default run leaves it out): one local[2]
session for the module. Every rendered metric equals the DuckDB macros on small random data
(ties, abstentions, 0/1, integer and continuous losses, bootstrap replicates; integer losses'
points bit for bit, the rest within 1e-13 relative), and
`evaluate --engine spark` gives DuckDB's artifact to 1e-12 (relative for percentages), CIs
included, on a per-sample file."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from portable_support import AREA_C, PORTABLE_COLUMNS, load_inputs, make_data, mismatches, reference, wrap

from riskcov.metrics import portable

pytestmark = pytest.mark.spark
pyspark = pytest.importorskip("pyspark", reason="the spark extra: pip install 'riskcov[spark]'")


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from riskcov.evaluation.spark_engine import session

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


def _close(a: Any, b: Any, path: str, out: list[str]) -> None:
    if isinstance(a, dict):
        assert set(a) == set(b), path
        for k in a:
            _close(a[k], b[k], f"{path}/{k}", out)
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _close(x, y, f"{path}[{i}]", out)
    elif isinstance(a, float) or isinstance(b, float):
        tol = 1e-12 * max(1.0, abs(a)) if path.endswith("_pct") else 1e-12
        if a is None or b is None or not math.isclose(a, b, rel_tol=0, abs_tol=tol):
            out.append(f"{path}: duckdb {a} spark {b}")
    elif a != b:
        out.append(f"{path}: duckdb {a} spark {b}")


def _samples_parquet(path: Path, rng: Any, n: int, losses: list[float], method: str = "m") -> None:
    """A per-sample Parquet file: ties, abstentions, two score columns, text clusters (so their
    order is text order: c10 before c2), two methods (the evaluation picks one), labels (the
    class-balanced areas)."""
    con = duckdb.connect()
    cols = {
        "sample_id": list(range(n)),
        "confidence": rng.choice([0.2, 0.5, 0.8, 0.9], n).tolist(),
        "confidence_msp": rng.random(n).round(2).tolist(),
        "loss": rng.choice(losses, n).tolist(),
        "abstained": (rng.random(n) < 0.1).tolist(),
        "cluster": [f"c{k}" for k in rng.integers(0, 20, n)],
        "method": [method if k % 3 else "other" for k in range(n)],
        "label": rng.integers(0, 3, n).tolist(),
        "prediction": rng.integers(0, 3, n).tolist(),
    }
    con.execute(
        "COPY (SELECT unnest($s::BIGINT[]) AS sample_id, unnest($c::DOUBLE[]) AS confidence, "
        "unnest($m::DOUBLE[]) AS confidence_msp, unnest($l::DOUBLE[]) AS loss, "
        "unnest($a::BOOLEAN[]) AS abstained, unnest($k::VARCHAR[]) AS cluster, "
        "unnest($e::VARCHAR[]) AS method, unnest($y::BIGINT[]) AS label, "
        f"unnest($p::BIGINT[]) AS prediction) TO '{path}' (FORMAT parquet)",
        {"s": cols["sample_id"], "c": cols["confidence"], "m": cols["confidence_msp"], "l": cols["loss"],
         "a": cols["abstained"], "k": cols["cluster"], "e": cols["method"], "y": cols["label"],
         "p": cols["prediction"]},
    )  # fmt: skip


def _evaluate(tmp_path: Path, name: str, engine: str, spec: str, *extra: str) -> Any:
    from typer.testing import CliRunner

    from riskcov.cli import app

    out = tmp_path / f"{name}.json"
    args = ["evaluate", "--warehouse", str(tmp_path / f"{name}.duckdb"), "--input", spec,
            "--bootstrap-resamples", "8", "--output", str(out), "--engine", engine,
            "--spark-master", "local[2]", *extra]  # fmt: skip
    res = CliRunner().invoke(app, args)
    return res, (json.loads(out.read_text()) if res.exit_code == 0 else None)


EXTRA = ("--confidence", "all", "--curve-points", "11")


def test_evaluate_engine_spark_equals_duckdb(tmp_path: Path, spark: Any) -> None:
    """The same Parquet through DuckDB (ingested) and Spark (read where it lies, and as an
    ingested run): equal artifacts to 1e-12, CIs included."""
    import numpy as np

    data = tmp_path / "runs.parquet"
    _samples_parquet(data, np.random.default_rng(7), 90, [0.0, 0.25, 1 / 3, 1.0])
    arts = {}
    for name, engine in (("duckdb", "duckdb"), ("spark", "spark")):
        res, arts[name] = _evaluate(tmp_path, name, engine, str(data), "--method", "m", *EXTRA)
        assert res.exit_code == 0, res.output
    # the old path: an ingested run's scored units shipped to Spark
    res, arts["ingested"] = _evaluate(tmp_path, "duckdb", "spark", "runs", "--method", "m", *EXTRA)
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
            _close(arts["duckdb"][key], arts[other][key], key, diffs)
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


def test_spark_input_bad_value_is_one_line_and_stores_nothing(tmp_path: Path, spark: Any) -> None:
    import numpy as np

    data = tmp_path / "bad.parquet"
    _samples_parquet(data, np.random.default_rng(3), 30, [0.0, 1.0, -1.0])
    res, _ = _evaluate(tmp_path, "bad", "spark", str(data), "--method", "m")
    assert res.exit_code == 1, res.output
    con = duckdb.connect()
    first = con.execute(
        f"SELECT min(CAST(sample_id AS VARCHAR)), count(*) FROM '{data}' WHERE loss < 0 AND method = 'm'"
    ).fetchone()
    assert first is not None
    line = f"bad.parquet: sample {first[0]}: column loss: not a finite number >= 0 ({first[1]} sample(s))"
    assert line in res.output and len(res.output.strip().splitlines()) == 1, res.output
    res, _ = _evaluate(tmp_path, "bad", "spark", str(data))
    assert res.exit_code == 2 and "choose one with --method (m, other)" in res.output, res.output
    wh = duckdb.connect(str(tmp_path / "bad.duckdb"), read_only=True)
    assert wh.execute("SELECT count(*) FROM evaluations").fetchone() == (0,)
    wh.close()


def test_spark_fingerprint_follows_content_not_layout(tmp_path: Path, spark: Any) -> None:
    from riskcov.evaluation import spark_checks
    from riskcov.formats.per_sample.column_checks import TEXT, Source, plan_columns

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
