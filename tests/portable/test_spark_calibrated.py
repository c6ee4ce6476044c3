"""`evaluate --engine spark --calibration FILE` on a file Spark reads where it lies gives the
DuckDB engine's artifact to 1e-12: a calibrator fitted by `riskcov calibrate` on the ingested
file, applied by Spark as its SQL expression over the input's columns (temperature scaling
of one score column under `--confidence all`, Platt scaling); an isotonic calibrator is
refused in one line. The input's own `prob`: its calibration (inputs[].calibration) equals
DuckDB's, and a value outside [0, 1] is one line. The `pytest -m spark` job of .ci/run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from spark_support import close, evaluate_cli, samples_parquet

pytestmark = pytest.mark.spark
pytest.importorskip("pyspark", reason="the spark extra: pip install 'riskcov[spark]'")


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from riskcov.evaluation.spark_session import session

    s = session("local[2]")
    yield s
    s.stop()


def _calibrator(tmp_path: Path, data: Path, method: str, feature: str) -> Path:
    from typer.testing import CliRunner

    from riskcov.cli import app

    out = tmp_path / f"{method}.json"
    args = ["calibrate", "--input", str(data), "--warehouse", str(tmp_path / "cal.duckdb"), "--method",
            method, "--features", feature, "--experiment-method", "m", "--output", str(out)]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    return out


@pytest.mark.parametrize(
    ("method", "feature", "confidence", "variants"),
    [
        ("temperature", "msp", "all", ["calibrated", "confidence", "msp"]),
        ("platt", "confidence", "calibrated", ["calibrated"]),
    ],
)
def test_calibration_on_a_file_spark_reads_equals_duckdb(
    tmp_path: Path, spark: Any, method: str, feature: str, confidence: str, variants: list[str]
) -> None:
    data = tmp_path / "runs.parquet"
    samples_parquet(data, np.random.default_rng(17), 120, [0.0, 0.0, 1.0])
    cal = _calibrator(tmp_path, data, method, feature)
    arts = {}
    for engine in ("duckdb", "spark"):
        res, arts[engine] = evaluate_cli(
            tmp_path, engine, engine, str(data), "--method", "m", "--confidence", confidence,
            "--calibration", str(cal),
        )  # fmt: skip
        assert res.exit_code == 0, (engine, res.output)
    want, got = arts["duckdb"], arts["spark"]
    assert got["options"].pop("engine") == "spark"
    assert sorted(want["confidence_variants"]) == variants == sorted(got["confidence_variants"])
    assert got["calibrator"] == want["calibrator"] and got["options"]["calibration"] == str(cal)
    diffs: list[str] = []
    for key in ("population", "confidence_variants"):
        close(want[key], got[key], key, diffs)
    assert diffs == [], diffs[:10]


def test_isotonic_calibration_is_refused_in_one_line(tmp_path: Path, spark: Any) -> None:
    data = tmp_path / "runs.parquet"
    samples_parquet(data, np.random.default_rng(17), 60, [0.0, 1.0])
    cal = _calibrator(tmp_path, data, "isotonic", "confidence")
    res, _ = evaluate_cli(
        tmp_path, "iso", "spark", str(data), "--method", "m", "--confidence", "calibrated:confidence",
        "--calibration", str(cal),
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "an isotonic calibrator's SQL is written with DuckDB's list" in lines[0]


def test_prob_calibration_of_a_file_spark_reads_equals_duckdb(tmp_path: Path, spark: Any) -> None:
    # 0/1 losses and a prob with bin edges and empty values: inputs[].calibration as DuckDB's
    data = tmp_path / "prob.parquet"
    samples_parquet(
        data, np.random.default_rng(23), 150, [0.0, 1.0], prob=[0.3, 0.05, None, 1.0, 0.0, 0.71, 0.5]
    )
    got = {}
    for engine in ("duckdb", "spark"):
        res, art = evaluate_cli(tmp_path, engine, engine, str(data), "--method", "m")
        assert res.exit_code == 0, (engine, res.output)
        got[engine] = art["inputs"][0]["calibration"]
    want = got["duckdb"]
    assert want is not None and want["n_bins"] == 10 and want["n"] > 50
    assert got["spark"]["n"] == want["n"] and got["spark"]["n_bins"] == 10
    for key in ("ece", "nll", "brier"):
        assert got["spark"][key] == pytest.approx(want[key], rel=1e-12, abs=1e-15), key
    # a loss other than 0 or 1: no calibration, on either engine
    other = tmp_path / "other.parquet"
    samples_parquet(other, np.random.default_rng(23), 60, [0.0, 0.5, 1.0], prob=[0.3, 0.6])
    for engine in ("duckdb", "spark"):
        res, art = evaluate_cli(tmp_path, f"o{engine}", engine, str(other), "--method", "m")
        assert res.exit_code == 0 and art["inputs"][0]["calibration"] is None, (engine, res.output)


def test_prob_outside_0_1_is_one_line_naming_the_lowest_sample(tmp_path: Path, spark: Any) -> None:
    data = tmp_path / "badprob.parquet"
    # sample 0 belongs to the other method ("other" where k % 3 == 0): the first bad one of m is 4
    samples_parquet(data, np.random.default_rng(2), 30, [0.0, 1.0], prob=[1.5, 0.2, 0.4, 0.9])
    res, _ = evaluate_cli(tmp_path, "badprob", "spark", str(data), "--method", "m")
    assert res.exit_code == 1, res.output
    bad = [i for i in range(30) if i % 3 and i % 4 == 0]
    first = min(map(str, bad))  # the lowest id as text, as Spark orders them
    line = f"error: {data}: sample {first}: column prob: not a number in [0, 1] ({len(bad)} sample(s))"
    assert res.output.strip() == line
