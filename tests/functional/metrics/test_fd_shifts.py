"""fd-shifts' conventions as named metrics and the calibration of `prob` (docs/metrics.md) on
per-sample runs: the worked example by hand, abstentions, continuous losses, and the bootstrap
CIs against the pure-Python oracle of metrics_support."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest
from metrics_support import EPS, Config, Unit, binary_losses, draws, interval, scalars

WORKED = "sample_id,confidence,correct\n1,0.9,1\n2,0.7,1\n3,0.7,0\n4,0.5,0\n5,0.2,1\n"


def _evaluate(run_cli: Any, tmp_path: Path, text: str, *args: str) -> dict[str, Any]:
    src = tmp_path / "run.csv"
    src.write_text(text)
    wh = tmp_path / "w.duckdb"
    r = run_cli(["ingest", src, "--warehouse", wh])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    r = run_cli(["evaluate", "--input", "run", "--warehouse", wh, "--json", *args])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    return json.loads(r.stdout)


def test_spec_worked_example(tmp_path, run_cli):
    m = _evaluate(run_cli, tmp_path, WORKED, "--bootstrap-resamples", "0")["confidence_variants"][
        "confidence"
    ]
    assert m["aurc_optimal_population"] == pytest.approx(0.4 + 0.6 * math.log(0.6 + EPS), rel=1e-15)
    assert m["aurc_optimal_population"] == pytest.approx(0.0935046257404058, rel=1e-15)
    assert m["eaurc_population"] == pytest.approx(0.24 - (0.4 + 0.6 * math.log(0.6)), rel=1e-14)
    # dominant points (1, 0) and (5, 2): (3, 1) and (4, 2) lie on or above the chord
    assert m["aurc_achievable_interpolated"] == pytest.approx(0.4 - 0.1 * math.log(5), rel=1e-15)


def test_the_item_estimators_interpolate_between_plateaus_not_items(tmp_path, run_cli):
    for estimator in ("item-step", "item-trapezoid"):
        (tmp_path / estimator).mkdir()
        art = _evaluate(
            run_cli, tmp_path / estimator, WORKED, "--bootstrap-resamples", "0", "--estimator", estimator
        )
        m = art["confidence_variants"]["confidence"]
        assert m["aurc_achievable_interpolated"] == pytest.approx(0.4 - 0.1 * math.log(5), rel=1e-15)
        assert m["aurc_optimal_population"] == pytest.approx(0.0935046257404058, rel=1e-15)


def test_abstentions_run_over_zero_to_cmax(tmp_path, run_cli):
    # 6 samples, 2 abstained: E = 2/6, Cmax = 4/6; the best curve is 0 up to 2/6
    text = (
        "sample_id,confidence,correct,abstained\n"
        "1,0.9,1,false\n2,0.8,0,false\n3,0.6,1,false\n4,0.4,0,false\n5,,0,true\n6,,1,true\n"
    )
    m = _evaluate(run_cli, tmp_path, text, "--bootstrap-resamples", "0")["confidence_variants"]["confidence"]
    e, cm = 2 / 6, 4 / 6
    assert m["cmax"] == pytest.approx(cm, rel=1e-15)
    assert m["aurc_optimal_population"] == pytest.approx(e + (cm - e) * math.log((cm - e) / cm), rel=1e-14)
    # counts (1,0) (2,1) (3,1) (4,2): hull (1,0), (3,1), (4,2); (2,1) lies above the chord
    pts = [(1 / 6, 0.0), (3 / 6, 1 / 6), (4 / 6, 2 / 6)]
    area = pts[0][1]
    for (c0, e0), (c, e1) in itertools.pairwise(pts):
        area += (e1 - e0) + (e0 * c - e1 * c0) / (c - c0) * math.log(c / c0)
    assert m["aurc_achievable_interpolated"] == pytest.approx(area, rel=1e-14)


def test_continuous_losses_keep_every_point_and_have_no_population_optimum(tmp_path, run_cli):
    text = "sample_id,confidence,loss\n1,0.9,0.25\n2,0.7,0.5\n3,0.5,0\n4,0.2,1\n"
    art = _evaluate(run_cli, tmp_path, text, "--bootstrap-resamples", "20")
    m = art["confidence_variants"]["confidence"]
    assert m["aurc_optimal_population"] is None
    assert m["eaurc_population"] is None
    assert m["bootstrap"]["ci95"]["aurc_optimal_population"] is None
    pts = [(0.25, 0.25 / 4), (0.5, 0.75 / 4), (0.75, 0.75 / 4), (1.0, 1.75 / 4)]
    area = pts[0][1]
    for (c0, e0), (c, e1) in itertools.pairwise(pts):
        area += (e1 - e0) + (e0 * c - e1 * c0) / (c - c0) * math.log(c / c0)
    assert m["aurc_achievable_interpolated"] == pytest.approx(area, rel=1e-14)
    assert art["inputs"][0]["calibration"] is None  # no prob column


def _clustered(seed: int) -> tuple[str, dict[int, list[tuple[float | None, int]]]]:
    """A per-sample file of 0/1 losses in 9 clusters of 1-4 samples, ties and abstentions."""
    rng = np.random.RandomState(seed)
    rows, by_cluster = [], {}
    sid = 0
    for cluster in range(9):
        for _ in range(rng.randint(1, 5)):
            sid += 1
            abstained = rng.rand() < 0.15
            conf = None if abstained else float(rng.randint(0, 6)) / 5
            loss = int(rng.rand() < 0.4)
            rows.append(f"{sid},{cluster},{'' if conf is None else conf},{1 - loss},{str(abstained).lower()}")
            by_cluster.setdefault(cluster, []).append((conf, loss))
    return "sample_id,cluster,confidence,correct,abstained\n" + "\n".join(rows) + "\n", by_cluster


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bootstrap_cis_equal_the_oracle_over_the_same_cluster_draws(tmp_path, run_cli, seed):
    text, by_cluster = _clustered(seed)
    b = 40
    m = _evaluate(run_cli, tmp_path, text, "--bootstrap-resamples", str(b), "--seed", str(seed))
    m = m["confidence_variants"]["confidence"]
    cfg = Config(loss="abs")
    pids = sorted(by_cluster)

    def units(clusters: list[int]) -> tuple[list[Unit], int]:
        out, n = [], 0
        for j, c in enumerate(clusters):
            for idx, (conf, loss) in enumerate(by_cluster[c]):
                n += 1
                if conf is not None:
                    out.append(Unit(conf, loss, j, idx))
        return out, n

    whole, n = units(pids)
    point = scalars(whole, n, cfg)
    binary = binary_losses(whole, 1)
    reps = [scalars(*units([pids[j] for j in row]), cfg, binary) for row in draws(len(pids), b, seed)]
    for key in ("aurc_optimal_population", "eaurc_population", "aurc_achievable_interpolated"):
        assert m[key] == pytest.approx(point[key][0], rel=1e-12, abs=1e-15)
        expected, _ = interval(point[key], [r[key] for r in reps], b)
        got = m["bootstrap"]["ci95"][key]
        assert got == pytest.approx([t.value for t in expected], rel=1e-12, abs=1e-15)


def test_prob_calibration_in_the_artifact_and_in_v_metrics(tmp_path, run_cli):
    text = (
        "sample_id,confidence,correct,prob\n"
        "1,0.9,1,0.95\n2,0.7,1,0.7\n3,0.7,0,0.7\n4,0.5,0,0.55\n5,0.2,1,0.3\n"
    )
    art = _evaluate(run_cli, tmp_path, text, "--bootstrap-resamples", "0")
    p, y = [0.95, 0.7, 0.7, 0.55, 0.3], [1, 1, 0, 0, 1]
    nll = -sum(b * math.log(a) + (1 - b) * math.log(1 - a) for a, b in zip(p, y, strict=True)) / 5
    # bins: 0.95 -> [0.9, 1] acc 1; 0.7, 0.7 -> [0.7, 0.8) acc 1/2; 0.55 -> acc 0; 0.3 -> acc 1
    ece = (1 * 0.05 + 2 * 0.2 + 1 * 0.55 + 1 * 0.7) / 5
    cal = art["inputs"][0]["calibration"]
    assert cal == {
        "n": 5,
        "ece": pytest.approx(ece, rel=1e-14),
        "nll": pytest.approx(nll, rel=1e-14),
        "brier": pytest.approx(0.275, rel=1e-14),
        "n_bins": 10,
    }
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    try:
        row = con.execute(
            "SELECT prob_ece, prob_nll, prob_brier, aurc_optimal_population, eaurc_population FROM v_metrics"
        ).fetchone()
    finally:
        con.close()
    m = art["confidence_variants"]["confidence"]
    assert row == (cal["ece"], cal["nll"], cal["brier"], m["aurc_optimal_population"], m["eaurc_population"])
