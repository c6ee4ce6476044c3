"""The settings `evaluate --engine spark` starts its session with (docs/spark.md): riskcov's
defaults, a local driver's heap sized from the machine, the user's --spark-conf over them; and
the flag's usage errors. No Spark needed: nothing here starts a session."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from riskcov.cli import app
from riskcov.evaluation import spark_session


def test_local_master_gets_a_driver_heap_sized_from_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spark_session, "driver_memory", lambda: "7g")
    got = spark_session.settings("local[2]", {}, None)
    assert got["spark.driver.memory"] == "7g" and got["spark.ui.enabled"] == "false"
    assert got["spark.sql.session.timeZone"] == "UTC"
    # the driver's WARNs name what riskcov does on purpose (docs/spark.md): ERROR and above only
    assert got["spark.log.level"] == "ERROR"
    # the cells broadcast to the weights, so the join keeps their partitioning by replicate
    assert got["spark.sql.autoBroadcastJoinThreshold"] == "64m"
    # a local Connect server (SPARK_REMOTE=local[2]) starts with them too
    connect = spark_session.settings(None, {}, "local[2]")
    assert connect["spark.driver.memory"] == "7g" and connect["spark.sql.autoBroadcastJoinThreshold"] == "64m"


def test_cluster_gets_no_heap_and_connect_session_settings_only() -> None:
    session_only = {
        "spark.sql.session.timeZone",
        "spark.sql.execution.arrow.pyspark.enabled",
        "spark.sql.shuffle.partitions",
    }
    assert set(spark_session.settings(None, {}, "sc://host:15002")) == session_only
    # a cluster's master without Connect: also no progress bar on stderr, its own UI and heap
    got = spark_session.settings("spark://host:7077", {}, None)
    assert set(got) == session_only | {"spark.ui.showConsoleProgress", "spark.log.level"}
    # a cluster keeps its own broadcast threshold (sized for its executors, not this machine)
    assert "spark.sql.autoBroadcastJoinThreshold" not in got


def test_spark_conf_overrides_and_adds() -> None:
    conf = {"spark.driver.memory": "12g", "spark.sql.shuffle.partitions": "64", "spark.executor.cores": "4",
            "spark.sql.autoBroadcastJoinThreshold": "-1"}  # fmt: skip
    got = spark_session.settings("local[*]", conf, None)
    assert {k: got[k] for k in conf} == conf


def test_driver_memory_is_a_quarter_in_whole_gib_within_1_to_32() -> None:
    gib = 2**30
    sizes = [1 * gib, 4 * gib, 7 * gib, 8 * gib, 23 * gib + gib // 2, 64 * gib, 200 * gib]
    want = [max(1, min(32, s // gib // 4)) for s in sizes]
    assert [spark_session.driver_memory(s) for s in sizes] == [f"{w}g" for w in want]
    assert spark_session.driver_memory().endswith("g")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--engine", "spark", "--spark-conf", "spark.driver.memory"],
            "--spark-conf spark.driver.memory: give KEY=VALUE",
        ),
        (["--engine", "spark", "--spark-conf", "=4g"], "--spark-conf =4g: give KEY=VALUE"),
        (["--spark-conf", "spark.driver.memory=4g"], "--spark-conf applies to --engine spark"),
        # was ignored: the evaluation ran on DuckDB as if the master had been taken
        (["--spark-master", "local[2]"], "--spark-master applies to --engine spark"),
    ],
)
def test_spark_conf_usage_errors(flags: list[str], message: str) -> None:
    res = CliRunner().invoke(app, ["evaluate", "--input", "x.parquet", *flags])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {message}"), res.output
