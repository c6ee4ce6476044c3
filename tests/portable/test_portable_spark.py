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
    for table in ("scored", "samples", "truncation", "coverages", "alphas"):
        spark.createDataFrame(con.sql(f"SELECT * FROM {table}").to_arrow_table()).createOrReplaceTempView(
            table
        )
    assert AREA_C == 0.5
    for name in PORTABLE_COLUMNS:
        rows = spark.sql(wrap(name, portable.render(name, "spark"))).collect()
        got = [tuple(r) for r in rows]
        # integer losses: points, MAE and Coverage@Risk bit for bit; areas are float sums whose
        # order Spark's window and the macros' ordered aggregate may not share
        exact = {0, 1} if name != "summary" else set()
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


def test_evaluate_engine_spark_equals_duckdb(tmp_path: Path, spark: Any) -> None:
    import numpy as np
    from typer.testing import CliRunner

    from riskcov.cli import app

    rng = np.random.default_rng(7)
    n = 60
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE s AS SELECT * FROM (SELECT unnest(range(?)) AS sample_id) "
        "POSITIONAL JOIN (SELECT unnest(?::DOUBLE[]) AS confidence) "
        "POSITIONAL JOIN (SELECT unnest(?::DOUBLE[]) AS loss) "
        "POSITIONAL JOIN (SELECT unnest(?::BOOLEAN[]) AS abstained) "
        "POSITIONAL JOIN (SELECT unnest(?::BIGINT[]) AS cluster)",
        [n, rng.choice([0.2, 0.5, 0.8, 0.9], n).tolist(), rng.choice([0.0, 0.25, 1 / 3, 1.0], n).tolist(),
         (rng.random(n) < 0.1).tolist(), rng.integers(0, 20, n).tolist()],
    )  # fmt: skip
    data = tmp_path / "runs.parquet"
    con.execute(f"COPY s TO '{data}' (FORMAT parquet)")
    arts = {}
    for eng in ("duckdb", "spark"):
        out = tmp_path / f"{eng}.json"
        args = ["evaluate", "--warehouse", str(tmp_path / f"{eng}.duckdb"), "--input", str(data),
                "--bootstrap-resamples", "8", "--output", str(out), "--engine", eng,
                "--spark-master", "local[2]"]  # fmt: skip
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 0, res.output
        arts[eng] = json.loads(out.read_text())
    assert arts["spark"]["options"].pop("engine") == "spark"
    diffs: list[str] = []
    for key in ("population", "confidence_variants", "loss"):
        _close(arts["duckdb"][key], arts["spark"][key], key, diffs)
    assert diffs == []
    assert arts["duckdb"]["confidence_variants"]["confidence"]["bootstrap"]["n_resamples"] == 8
