"""Which --input `evaluate --engine spark` leaves where it lies, and how it picks the
experiment of such an input (evaluation/spark_input.py; Spark itself is tested by the
`pytest -m spark` job)."""

from __future__ import annotations

from pathlib import Path

import pytest

from riskcov.errors import InputError, UsageError
from riskcov.evaluation import spark_checks, spark_input
from riskcov.evaluation.options import Options


def test_what_spark_reads_where_it_lies(tmp_path: Path) -> None:
    (tmp_path / "lake").mkdir()
    (tmp_path / "delta" / "_delta_log").mkdir(parents=True)
    (tmp_path / "runs.csv").write_text("sample_id,confidence,loss\n1,0.5,0\n")
    cases = {
        "table:db.preds": ("table", "db.preds"),
        "delta:/lake/preds": ("delta", "/lake/preds"),
        "parquet:/x/y": ("parquet", "/x/y"),
        "s3a://bucket/preds": ("parquet", "s3a://bucket/preds"),
        "runs.parquet": ("parquet", "runs.parquet"),
        str(tmp_path / "lake"): ("parquet", str(tmp_path / "lake")),
        str(tmp_path / "delta"): ("delta", str(tmp_path / "delta")),
        str(tmp_path / "runs.csv"): None,  # a CSV is ingested, as with DuckDB
        "a_run_id": None,
    }
    for spec, want in cases.items():
        assert spark_input._where(spec) == want, spec
        assert spark_input.read_by_spark(Options([spec], engine="spark")) is (want is not None), spec
        assert not spark_input.read_by_spark(Options([spec])), spec


EXPERIMENTS = [
    {"method": "a", "seed": 0, "split": "test", "domain": "id"},
    {"method": "a", "seed": 1, "split": "test", "domain": "id"},
    {"method": "b", "seed": 0, "split": "test", "domain": "id"},
]


def test_choose_picks_one_experiment_or_says_which_flags_choose() -> None:
    pick = spark_input._choose("t", EXPERIMENTS, Options(["t"], methods=["a"], seeds=["1"]))
    assert pick == EXPERIMENTS[1]
    with pytest.raises(UsageError) as many:
        spark_input._choose("t", EXPERIMENTS, Options(["t"], methods=["a"]))
    assert str(many.value) == "--input t: 2 experiments; choose one with --experiment-seed (0, 1)"
    with pytest.raises(InputError) as none:
        spark_input._choose("t", EXPERIMENTS, Options(["t"], methods=["c"]))
    assert "no experiment with method c (available: --method (a, b)" in str(none.value)
    with pytest.raises(UsageError, match="no modes"):
        spark_input._choose("t", EXPERIMENTS, Options(["t"], modes=["zero_shot"]))


def test_spark_literals_escape_quotes_and_backslashes() -> None:
    assert spark_checks.literal("it's \\ x") == "'it\\'s \\\\ x'"
    assert spark_checks.literal(-3) == "-3"


def test_item_estimators_are_refused_on_spark_with_the_reason() -> None:
    from riskcov.evaluation import spark_engine

    spark_engine.check(Options(["x"], engine="spark", curve_points=11))  # computed on Spark now
    with pytest.raises(UsageError) as refused:
        spark_engine.check(Options(["x"], engine="spark", estimator="item-step", bootstrap_resamples=0))
    assert str(refused.value) == (
        "--engine spark computes the plateau-trapezoid estimator, not item-step: the item estimators "
        "have no bootstrap (one pass over the point estimate), so --engine duckdb does it"
    )
