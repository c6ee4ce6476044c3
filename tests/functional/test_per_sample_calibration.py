"""Calibration on per-sample runs: fitted on one split's score columns (by CSF name), applied
by `evaluate --confidence calibrated` on another, with the PHQ-8 path's artifact and refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import riskcov
from riskcov.errors import InputError, UsageError
from riskcov.scoring.calibration.to_sql import feature_sql

FEATURES = ("token_msp", "retrieval_similarity_mean")


@pytest.fixture(scope="module")
def same_numbers(mk: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """A PHQ-8 run, and a per-sample table holding its zero_shot predicted items' features
    (as CSFs token_msp and retrieval_similarity_mean), correctness and loss, in the order the
    PHQ-8 fit reads them: (warehouse with the PHQ-8 run, its run_id, the table)."""
    folder = tmp_path_factory.mktemp("same")
    run = folder / "phq.json"
    mk.write_run(mk.make_run(40, seed=3), run)
    wh = riskcov.Warehouse(folder / "w.duckdb")
    with wh:
        phq = wh.ingest(run)
        rows = wh.sql(
            f"SELECT i.pred, i.gt, {', '.join(feature_sql(f) for f in FEATURES)} FROM items AS i"
            " LEFT JOIN item_signals AS s USING (experiment_id, participant_id, item_index)"
            " JOIN experiments AS e USING (experiment_id) WHERE e.mode = 'zero_shot'"
            " AND i.pred IS NOT NULL ORDER BY i.participant_id, i.item_index"
        ).fetchall()
    lines = ["sample_id,confidence_token_msp,confidence_retrieval_similarity_mean,loss,split"]
    for k, (pred, gt, msp, sim) in enumerate(rows):
        lines.append(f"{k},{msp!r},{sim!r},{abs(pred - gt) / 3.0!r},cal")
    table = folder / "same.csv"
    table.write_text("\n".join(lines) + "\n")
    return folder / "w.duckdb", phq, table


@pytest.mark.parametrize(
    ("method", "features", "target"),
    [
        ("temperature", ["token_msp"], "correctness"),
        ("platt", ["token_msp"], "correctness"),
        ("isotonic", ["retrieval_similarity_mean"], "correctness"),
        ("logistic", list(FEATURES), "correctness"),
        ("logistic", list(FEATURES), "loss"),
    ],
)
def test_the_per_sample_fit_is_the_phq8_fit_of_the_same_numbers(
    same_numbers: tuple[Path, str, Path], tmp_path: Path, method: str, features: list[str], target: str
) -> None:
    """The loss column is the PHQ-8 loss |pred - gt| / 3, so correctness (loss 0) and the loss
    target (1 - loss) are the PHQ-8 path's targets, bit for bit."""
    phq_wh, phq_run, table = same_numbers
    copy = tmp_path / "w.duckdb"
    copy.write_bytes(phq_wh.read_bytes())
    wh = riskcov.Warehouse(copy)
    phq = wh.calibrate(phq_run, method=method, features=features, mode="zero_shot", target=target)
    run = wh.ingest(table)
    per_sample = wh.calibrate(run, method=method, features=features, split="cal", target=target)
    assert per_sample["features"] == phq["features"] == features
    assert per_sample["model"] == phq["model"]
    # the metrics are DuckDB aggregates, whose float sums may run in another order
    assert per_sample["metrics"].keys() == phq["metrics"].keys()
    for key, value in phq["metrics"].items():
        assert per_sample["metrics"][key] == (value if value is None else pytest.approx(value, rel=1e-12))
    assert per_sample["fitted_on"]["n"] == phq["fitted_on"]["n"] > 100


def _splits(path: Path) -> Path:
    """cal and test splits of 300 samples each, confidence and msp columns, and prob."""
    rng = np.random.default_rng(11)
    lines = ["sample_id,confidence,confidence_msp,prob,correct,split"]
    for split in ("cal", "test"):
        for i in range(300):
            c, m = rng.random(), rng.random()
            lines.append(f"{split}{i},{c!r},{m!r},{c!r},{int(rng.random() < c)},{split}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_fit_on_cal_evaluate_on_test(tmp_path: Path, run_cli: Any) -> None:
    wh_path = tmp_path / "w.duckdb"
    table = _splits(tmp_path / "preds.csv")
    assert run_cli(["ingest", table, "--warehouse", wh_path]).exit_code == 0
    fit = run_cli(
        [
            *("calibrate", "--input", "preds", "--split", "cal", "--method", "temperature"),
            *("--features", "confidence", "--warehouse", wh_path),
        ]
    )
    assert fit.exit_code == 0, fit.stderr
    assert fit.stdout.startswith(
        "calibrator 1: temperature_scaling of confidence (target correctness) on run preds, "
        "experiment method preds, seed 0, split cal, domain id, 300 samples\n"
    )
    out = tmp_path / "cal.json"
    done = run_cli(
        [
            *("evaluate", "--input", "preds", "--split", "test", "--confidence", "all", "--calibration", "1"),
            *("--bootstrap-resamples", "0", "--output", out, "--warehouse", wh_path),
        ]
    )
    assert done.exit_code == 0, done.stderr
    art = json.loads(out.read_text())
    variants = art["confidence_variants"]
    assert sorted(variants) == ["calibrated", "confidence", "msp"]
    assert art["calibrator"]["id"] == 1 and art["options"]["calibration"] == "1"
    # temperature scaling is strictly increasing: the same ranking, so the same curve (but for
    # its thresholds, which are confidences)
    calibrated, raw = (
        {k: v for k, v in variants[name]["curve"].items() if k != "threshold"}
        for name in ("calibrated", "confidence")
    )
    assert calibrated == raw and len(raw["coverage"]) == 300
    assert variants["calibrated"]["aurc_full"] == variants["confidence"]["aurc_full"]


def test_a_two_feature_calibrator_and_the_refusals(tmp_path: Path) -> None:
    wh = riskcov.Warehouse(tmp_path / "w.duckdb")
    run = wh.ingest(_splits(tmp_path / "preds.csv"))
    logistic = wh.calibrate(run, method="logistic", features=["confidence", "msp", "prob"], split="cal")
    cid = str(logistic["calibrator_id"])
    ev = wh.evaluate(run, split="test", confidence="calibrated", calibration=cid, resamples=0)
    assert list(ev.artifact["confidence_variants"]) == ["calibrated"]
    assert ev.artifact["calibrator"]["features"] == ["confidence", "msp", "prob"]
    with pytest.raises(UsageError, match="a logistic calibrator cannot calibrate one CSF's value"):
        wh.evaluate(run, split="test", confidence="calibrated:msp", calibration=cid, resamples=0)
    with pytest.raises(UsageError, match="--confidence calibrated needs --calibration"):
        wh.evaluate(run, split="test", confidence="calibrated", resamples=0)
    with pytest.raises(UsageError, match="--target near_correct applies to PHQ-8 runs"):
        wh.calibrate(run, method="platt", features=["msp"], split="cal", target="near_correct")
    # a run without the calibrator's msp column: an error, and skipped under `all`
    other = wh.ingest({"confidence": [0.9, 0.5, 0.1], "correct": [1, 0, 0]}, run_id="other")
    lacking = r"domain id, sample 1: msp is null or not a score column of the run \(3 predicted"
    with pytest.raises(InputError, match=lacking):
        wh.evaluate(other, confidence="calibrated", calibration=cid, resamples=0)
    skipped = wh.evaluate(other, confidence="all", calibration=cid, resamples=0).skipped
    assert list(skipped) == ["calibrated"]
