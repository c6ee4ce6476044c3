"""Spark Connect (the `pytest -m spark` job of .ci/run): `evaluate --engine spark` through a
local Spark Connect server (SPARK_REMOTE=local[2], the spark-connect extra) gives the DuckDB
engine's artifact to 1e-12, CIs included, for a Parquet file Spark reads and for an ingested
run shipped to it. A Connect session has no SparkContext, RDD or JVM handle, so any such call
on the path fails here. It runs in a subprocess: pyspark refuses to start a Connect server in a
process that already holds a classic session (test_portable_spark.py's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from spark_support import EXTRA, close, evaluate_cli, samples_parquet

pytestmark = pytest.mark.spark
pytest.importorskip("pyspark", reason="the spark extra: pip install 'riskcov[spark]'")
pytest.importorskip("grpc", reason="the spark-connect extra: pip install 'riskcov[spark-connect]'")

# every evaluation of argv[1] (a JSON list of argument lists) in one process, the session riskcov
# starts (SPARK_REMOTE: a Connect one) reused by each; then the shuffle partitions it ended with
SCRIPT = """
import json, sys
from riskcov.cli import app
from riskcov.evaluation.spark_session import session
spark = session(None)
print(type(spark).__module__)
for args in json.loads(sys.argv[1]):
    app(args, standalone_mode=False)
print(spark.conf.get("spark.sql.shuffle.partitions"))
"""


def test_evaluate_through_spark_connect_equals_duckdb(tmp_path: Path) -> None:
    import numpy as np

    data = tmp_path / "runs.parquet"
    samples_parquet(data, np.random.default_rng(11), 90, [0.0, 0.5, 1.0])
    res, want = evaluate_cli(tmp_path, "duckdb", "duckdb", str(data), "--method", "m", *EXTRA)
    assert res.exit_code == 0, res.output
    runs = []
    conf = ("--spark-conf", "spark.sql.shuffle.partitions=3")
    for name, spec in (("read", str(data)), ("ingested", "runs")):
        wh = tmp_path / ("duckdb.duckdb" if name == "ingested" else "read.duckdb")
        runs.append(["evaluate", "--warehouse", str(wh), "--input", spec, "--method", "m",
                     "--bootstrap-resamples", "8", "--output", str(tmp_path / f"{name}.json"),
                     "--engine", "spark", *conf, *EXTRA])  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(runs)],
        env={**os.environ, "SPARK_REMOTE": "local[2]"},
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    lines = proc.stdout.strip().splitlines()
    # a Connect session, and --spark-conf reached it
    assert lines[0] == "pyspark.sql.connect.session" and lines[-1] == "3", proc.stdout
    assert "Failed to set" not in proc.stderr, proc.stderr[-2000:]
    for name in ("read", "ingested"):
        got = json.loads((tmp_path / f"{name}.json").read_text())
        assert got["options"].pop("engine") == "spark"
        assert (got["inputs"][0].get("read_by") == "spark") == (name == "read")
        diffs: list[str] = []
        for key in ("population", "confidence_variants", "loss", "rank_stability"):
            close(want[key], got[key], key, diffs)
        assert diffs == [], (name, diffs[:10])
    # the CIs compared above are real ones (8 replicates that differ)
    lo, hi = want["confidence_variants"]["confidence"]["bootstrap"]["ci95"]["aurc_full"]
    assert lo < hi
