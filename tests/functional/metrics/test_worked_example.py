"""docs/metrics.md by hand, under the three estimators.

Participant 101: items 0..2 predicted with llm_evidence_count 2, 2, 1 and absolute errors
0, 2, 0; items 3..7 abstain. Participant 102 failed. Loss abs: N = 8, K = 3.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

import pytest
from metrics_support import (
    DEFAULT_ALPHAS,
    LOSSES,
    assert_same,
    failed,
    participant,
    run_doc,
    worked_example_doc,
    write_json,
)

FLAGS = ["--loss", "abs", "--confidence", "llm", "--coverage-grid", "0.25,0.5", "--bootstrap-resamples", "0"]


@pytest.fixture
def evaluate(riskcov, tmp_path: Path, warehouse: Path):
    """`evaluate(doc, *flags)`: `riskcov evaluate --json` on `doc`; the artifact, checked
    equal to the written file."""

    def go(doc: dict[str, Any], *flags: str) -> dict[str, Any]:
        run = write_json(tmp_path / "run.json", doc)
        out = tmp_path / "artifact.json"
        r = riskcov(["evaluate", "--input", run, *flags, "--json", "--output", out, "--warehouse", warehouse])
        assert (r.exit_code, r.stderr, r.exception) == (0, "", None)
        art = json.loads(r.stdout)
        assert art == json.loads(out.read_text())
        return art

    return go


def no_coverage_at_risk(alphas: list[float]) -> dict[str, Any]:
    return {f"{a:.2f}": {"alpha": a, "coverage": 0.0, "risk": None, "threshold": None} for a in alphas}


def test_plateau_trapezoid_whole_artifact(evaluate, tmp_path: Path) -> None:
    art = evaluate(worked_example_doc(), *FLAGS)
    aurc, augrc = 17 / 48, 1 / 16
    aurc_opt, augrc_opt = 1 / 24, 1 / 64  # oracle order: losses 0, 0, 2
    expected = {
        "schema_version": "1",
        "inputs": [
            {
                "path": str(tmp_path / "run.json"),
                "run_id": "worked01",
                "git_commit": "abc",
                "mode": "few_shot",
                "sha256": hashlib.sha256((tmp_path / "run.json").read_bytes()).hexdigest(),
            }
        ],
        "population": {
            "participants_total": 2,
            "participants_included": 1,
            "participants_failed": 1,
            "items_total": 8,
            "items_predicted": 3,
            "cmax": 3 / 8,
        },
        "loss": LOSSES["abs"],
        "estimator": "plateau-trapezoid",
        "confidence_variants": {
            "llm": {
                "cmax": 3 / 8,
                "aurc_full": aurc,
                "augrc_full": augrc,
                "aurc_optimal": aurc_opt,
                "augrc_optimal": augrc_opt,
                "eaurc": 5 / 16,
                "eaugrc": 3 / 64,
                "aurc_achievable": 17 / 48,  # two points: the hull is the curve itself
                # docs/metrics.md: losses 0, 0, 2 are not 0/1, so no population optimum, and every
                # plateau point counts: E = 1/4 up to 1/4, then E(c)/c from (1/4, 1/4) to (3/8, 1/4)
                "aurc_optimal_population": None,
                "eaurc_population": None,
                "aurc_achievable_interpolated": 0.25 * (1 + math.log(1.5)),
                "interpretation": {"aurc_gap_pct": 750.0, "augrc_gap_pct": 300.0, "achievable_gain_pct": 0.0},
                "aurc_at_c": {"requested": 0.5, "used": 3 / 8, "value": aurc},
                "augrc_at_c": {"requested": 0.5, "used": 3 / 8, "value": augrc},
                "mae_at_coverage": {
                    "0.25": {"requested": 0.25, "achieved": 0.25, "value": 1.0},
                    "0.50": None,
                },
                "coverage_at_risk": no_coverage_at_risk(DEFAULT_ALPHAS),  # risks 1 and 2/3
                "bootstrap": {},
                "curve": {
                    "coverage": [0.25, 3 / 8],
                    "selective_risk": [1.0, 2 / 3],
                    "generalized_risk": [0.25, 0.25],
                    "threshold": [2.0, 1.0],
                },
            }
        },
        "skipped_variants": {},
        "comparison": {"enabled": False, "intersection_only": False, "deltas": None},
        "options": {
            "coverage_grid": [0.25, 0.5],
            "area_coverage": 0.5,
            "alpha_grid": DEFAULT_ALPHAS,
            "bootstrap_resamples": 0,
            "seed": 42,
            "confidence": "llm",
            "riskcov_version": art["options"]["riskcov_version"],
        },
    }
    assert_same(expected, art)
    assert art["created_at"].endswith("Z")


# item estimators: one point per item, the tie at llm 2 broken by item_index (item 0, loss 0,
# first), so the points are (1/8, 0, 0), (2/8, 1, 1/4), (3/8, 2/3, 1/4), thresholds 2, 2, 1
ITEM_CURVE = {
    "coverage": [1 / 8, 2 / 8, 3 / 8],
    "selective_risk": [0.0, 1.0, 2 / 3],
    "generalized_risk": [0.0, 0.25, 0.25],
    "threshold": [2.0, 2.0, 1.0],
}
# lower hull of the item points: (1/8, 0), (3/8, 2/3); with the point (0, 0) added: 1/12
ITEM_ACHIEVABLE = 1 / 12


def test_item_step(evaluate) -> None:
    art = evaluate(worked_example_doc(), *FLAGS, "--estimator", "item-step")
    m = art["confidence_variants"]["llm"]
    assert art["estimator"] == "item-step"
    assert_same(ITEM_CURVE, m["curve"])
    # AURC = (0 + 1 + 2/3) / 8, AUGRC = (0 + 1/4 + 1/4) / 8
    assert m["aurc_full"] == pytest.approx(5 / 24, rel=1e-12)
    assert m["augrc_full"] == pytest.approx(1 / 16, rel=1e-12)
    # C' = min(0.5, 3/8): x = 3 whole steps, no partial step
    assert m["aurc_at_c"] == pytest.approx({"requested": 0.5, "used": 3 / 8, "value": 5 / 24}, rel=1e-12)
    assert m["augrc_at_c"] == pytest.approx({"requested": 0.5, "used": 3 / 8, "value": 1 / 16}, rel=1e-12)
    # k* = ceil(0.25 * 8) = 2 -> risk_2 = 1; ceil(0.5 * 8) = 4 > K = 3 -> null
    assert m["mae_at_coverage"] == {"0.25": {"requested": 0.25, "achieved": 0.25, "value": 1.0}, "0.50": None}
    assert m["cmax"] == 3 / 8
    assert m["aurc_achievable"] == pytest.approx(ITEM_ACHIEVABLE, rel=1e-12)
    assert m["interpretation"]["achievable_gain_pct"] == pytest.approx(60.0, rel=1e-12)
    for a in DEFAULT_ALPHAS:  # only the first item point (risk 0) is within every budget
        car = m["coverage_at_risk"][f"{a:.2f}"]
        assert (car["alpha"], car["coverage"], car["risk"]) == (a, 1 / 8, 0.0)
    assert m["bootstrap"] == {}


def test_item_trapezoid(evaluate) -> None:
    art = evaluate(worked_example_doc(), *FLAGS, "--estimator", "item-trapezoid")
    m = art["confidence_variants"]["llm"]
    assert art["estimator"] == "item-trapezoid"
    assert_same(ITEM_CURVE, m["curve"])
    # 1/8 * (0 + 1)/2 + 1/8 * (1 + 2/3)/2 = 1/16 + 5/48 = 1/6
    assert m["aurc_full"] == pytest.approx(1 / 6, rel=1e-12)
    # 1/8 * (0 + 1/4)/2 + 1/8 * (1/4 + 1/4)/2 = 1/64 + 1/32 = 3/64
    assert m["augrc_full"] == pytest.approx(3 / 64, rel=1e-12)
    assert m["aurc_at_c"] == pytest.approx({"requested": 0.5, "used": 3 / 8, "value": 1 / 6}, rel=1e-12)
    assert m["augrc_at_c"] == pytest.approx({"requested": 0.5, "used": 3 / 8, "value": 3 / 64}, rel=1e-12)
    # the first item point with coverage >= 0.25 is the second one (risk 1)
    assert m["mae_at_coverage"] == {"0.25": {"requested": 0.25, "achieved": 0.25, "value": 1.0}, "0.50": None}
    # the optimal item points (1/8, 0, 0), (2/8, 0, 0), (3/8, 2/3, 1/4): 1/24 and 1/64 with
    # or without the point at coverage 0 (its risk is 0 either way)
    assert m["aurc_optimal"] == pytest.approx(1 / 24, rel=1e-12)
    assert m["augrc_optimal"] == pytest.approx(1 / 64, rel=1e-12)
    assert m["eaurc"] == pytest.approx(1 / 8, rel=1e-12)
    assert m["eaugrc"] == pytest.approx(1 / 32, rel=1e-12)
    assert m["interpretation"] == pytest.approx(
        {"aurc_gap_pct": 300.0, "augrc_gap_pct": 200.0, "achievable_gain_pct": 50.0}, rel=1e-12
    )
    assert m["aurc_achievable"] == pytest.approx(ITEM_ACHIEVABLE, rel=1e-12)


# --area-coverage 0.3 (inside the curve) and MAE at 0.1, 0.3, 0.4, by hand:
#   plateau:        (0,1)-(1/4,1)-(0.3, 13/15): 1/4 + 0.05 * (1 + 13/15)/2 = 89/300;
#                   AUGRC (0,0)-(1/4,1/4)-(0.3,1/4): 1/32 + 0.05 * 1/4 = 7/160
#   item-step:      x = 0.3 * 8 = 2.4: (0 + 1 + 0.4 * 2/3) / 8 = 19/120;
#                   (0 + 1/4 + 0.4 * 1/4) / 8 = 7/160; k* = ceil(0.8) = 1, ceil(2.4) = 3
#   item-trapezoid: (1/8,0)-(1/4,1)-(0.3,13/15): 1/16 + 7/150 = 131/1200;
#                   (1/8,0)-(1/4,1/4)-(0.3,1/4): 1/64 + 1/80 = 9/320
TRUNCATED = {
    "plateau-trapezoid": (89 / 300, 7 / 160, {"0.10": (0.25, 1.0), "0.30": (3 / 8, 2 / 3)}),
    "item-step": (19 / 120, 7 / 160, {"0.10": (1 / 8, 0.0), "0.30": (3 / 8, 2 / 3)}),
    "item-trapezoid": (131 / 1200, 9 / 320, {"0.10": (1 / 8, 0.0), "0.30": (3 / 8, 2 / 3)}),
}


@pytest.mark.parametrize("estimator", list(TRUNCATED))
def test_truncated_areas_and_mae_inside_the_curve(evaluate, estimator: str) -> None:
    art = evaluate(
        worked_example_doc(),
        "--loss",
        "abs",
        "--confidence",
        "llm",
        "--bootstrap-resamples",
        "0",
        "--area-coverage",
        "0.3",
        "--coverage-grid",
        "0.1,0.3,0.4",
        "--estimator",
        estimator,
    )
    m = art["confidence_variants"]["llm"]
    aurc_c, augrc_c, mae = TRUNCATED[estimator]
    assert m["aurc_at_c"] == pytest.approx({"requested": 0.3, "used": 0.3, "value": aurc_c}, rel=1e-12)
    assert m["augrc_at_c"] == pytest.approx({"requested": 0.3, "used": 0.3, "value": augrc_c}, rel=1e-12)
    expected_mae: dict[str, Any] = {
        k: {
            "requested": float(k),
            "achieved": pytest.approx(c, rel=1e-12),
            "value": pytest.approx(v, rel=1e-12),
        }
        for k, (c, v) in mae.items()
    }
    expected_mae["0.40"] = None  # above Cmax = 3/8
    assert m["mae_at_coverage"] == expected_mae


def test_coverage_at_risk_on_the_plateau_curve(evaluate) -> None:
    art = evaluate(worked_example_doc(), *FLAGS, "--alpha-grid", "0.5,0.7,1")
    car = art["confidence_variants"]["llm"]["coverage_at_risk"]
    assert car == {
        "0.50": {"alpha": 0.5, "coverage": 0.0, "risk": None, "threshold": None},
        "0.70": {"alpha": 0.7, "coverage": 3 / 8, "risk": 2 / 3, "threshold": 1.0},
        "1.00": {"alpha": 1.0, "coverage": 3 / 8, "risk": 2 / 3, "threshold": 1.0},
    }


def test_abs_norm_divides_every_risk_by_three(evaluate) -> None:
    art = evaluate(
        worked_example_doc(),
        "--loss",
        "abs_norm",
        "--confidence",
        "llm",
        "--coverage-grid",
        "0.25,0.5",
        "--bootstrap-resamples",
        "0",
    )
    m = art["confidence_variants"]["llm"]
    assert art["loss"] == LOSSES["abs_norm"]
    assert m["curve"]["selective_risk"] == pytest.approx([1 / 3, 2 / 9], rel=1e-12)
    assert m["curve"]["generalized_risk"] == pytest.approx([1 / 12, 1 / 12], rel=1e-12)
    assert (m["aurc_full"], m["augrc_full"]) == pytest.approx((17 / 144, 1 / 48), rel=1e-12)
    assert (m["aurc_optimal"], m["augrc_optimal"]) == pytest.approx((1 / 72, 1 / 192), rel=1e-12)
    assert m["interpretation"]["aurc_gap_pct"] == pytest.approx(750.0, rel=1e-12)


# ------------------------------------------------- item estimators: thresholds and the oracle


@pytest.mark.parametrize("estimator", ["item-step", "item-trapezoid"])
def test_coverage_at_risk_threshold_is_the_confidence_under_item_estimators(evaluate, estimator: str) -> None:
    art = evaluate(worked_example_doc(), *FLAGS, "--estimator", estimator)
    car = art["confidence_variants"]["llm"]["coverage_at_risk"]["0.20"]
    assert car == {"alpha": 0.2, "coverage": 1 / 8, "risk": 0.0, "threshold": 2.0}


def perfect_ranking_doc() -> dict[str, Any]:
    """Every item predicted, losses 1,1,1,2,2,3,3,3 with llm 7..0: a perfect ranking."""
    gts = [0] * 8
    preds = [1, 1, 1, 2, 2, 3, 3, 3]
    signals = [{"llm_evidence_count": 7 - i} for i in range(8)]
    return run_doc("perfect", [("m", [participant(1, preds, gts, signals), failed(2)])])


def test_a_perfect_ranking_has_no_excess_under_the_default_estimator(evaluate) -> None:
    art = evaluate(
        perfect_ranking_doc(), "--loss", "abs", "--confidence", "llm", "--bootstrap-resamples", "0"
    )
    m = art["confidence_variants"]["llm"]
    assert m["aurc_optimal"] == pytest.approx(m["aurc_full"], rel=1e-12)
    assert (m["eaurc"], m["eaugrc"]) == pytest.approx((0.0, 0.0), abs=1e-15)


@pytest.mark.parametrize("estimator", ["item-step", "item-trapezoid"])
def test_a_perfect_ranking_has_no_excess_under_item_estimators(evaluate, estimator: str) -> None:
    art = evaluate(
        perfect_ranking_doc(),
        "--loss",
        "abs",
        "--confidence",
        "llm",
        "--bootstrap-resamples",
        "0",
        "--estimator",
        estimator,
    )
    m = art["confidence_variants"]["llm"]
    assert (m["eaurc"], m["eaugrc"]) == pytest.approx((0.0, 0.0), abs=1e-15)


def test_item_step_oracle_by_hand(evaluate) -> None:
    art = evaluate(worked_example_doc(), *FLAGS, "--estimator", "item-step")
    m = art["confidence_variants"]["llm"]
    assert (m["aurc_optimal"], m["augrc_optimal"]) == pytest.approx((1 / 12, 1 / 32), rel=1e-12)
    assert (m["eaurc"], m["eaugrc"]) == pytest.approx((1 / 8, 1 / 32), rel=1e-12)
    assert m["interpretation"]["aurc_gap_pct"] == pytest.approx(150.0, rel=1e-12)
    assert m["interpretation"]["augrc_gap_pct"] == pytest.approx(100.0, rel=1e-12)
