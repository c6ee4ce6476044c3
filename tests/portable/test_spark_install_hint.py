"""Without the spark extra, `evaluate --engine spark` says in one line how to install it,
before it reads anything, and leaves the warehouse as it was (no Spark needed to run this)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import riskcov.evaluation.options
from riskcov.cli import app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "selective_samples.parquet"


def test_engine_spark_without_pyspark_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(riskcov.evaluation.options, "spark_installed", lambda: False)
    wh = tmp_path / "w.duckdb"
    res = CliRunner().invoke(
        app,
        [
            "evaluate",
            "--warehouse",
            str(wh),
            "--input",
            "examples/selective_samples.parquet",
            "--engine",
            "spark",
        ],
    )
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        "error: --engine spark needs pyspark and pyarrow: pip install 'riskcov[spark]' (and Java 17+)"
    ]
    assert not wh.exists()


def test_unknown_engine_is_a_usage_error() -> None:
    res = CliRunner().invoke(app, ["evaluate", "--input", "x.parquet", "--engine", "flink"])
    assert res.exit_code == 2 and "--engine flink: choose duckdb or spark" in res.output
