"""`riskcov risk-control`, `ood` and `compare` on a hand-checkable per-sample run (docs/risk-control.md):
exact JSON rows and console lines, refusals as one line with the warehouse unchanged, stored
rows equal to the JSON."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from riskcov.riskcontrol.ood_suite import stored_rows

CAL = [(0.9, 0), (0.8, 0), (0.7, 0), (0.6, 1), (0.5, 1)]  # (confidence, loss)
TEST = {
    1: [(0.95, 0), (0.85, 1), (0.75, 0), (0.65, 0), (0.3, 1)],
    2: [(0.95, 1), (0.85, 1), (0.75, 0), (0.65, 0), (0.3, 0)],
}
OOD = [0.9, 0.5, 0.2]


def _csv(path: Path, cal_loss: dict[int, float] | None = None, drop_test_seed: int | None = None) -> Path:
    lines = ["method,seed,split,domain,sample_id,confidence,loss"]
    for seed in (1, 2):
        for i, (c, loss) in enumerate(CAL):
            lines.append(f"a,{seed},cal,id,{i},{c},{(cal_loss or {}).get(i, loss)}")
        if seed != drop_test_seed:
            lines += [f"a,{seed},test,id,{i},{c},{loss}" for i, (c, loss) in enumerate(TEST[seed])]
        lines += [f"a,{seed},test,ood,{i},{c},1" for i, c in enumerate(OOD)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return _csv(tmp_path / "demo.csv")


def _json(run_cli, *args: object) -> dict:
    r = run_cli([*args, "--json"])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    return json.loads(r.stdout)


RC_FLAGS = ("--alpha", "0.25", "--bound", "hoeffding", "--candidates", "5", "--violation-margin", "0.1")


def _row(seed, rule, threshold, cal_cov, cal_risk, cov, risk, gen, acc, violated, margin, cal_id, test_id):
    return {
        "method": "a",
        "seed": seed,
        "rule": rule,
        "alpha": 0.25,
        "csf": "confidence",
        "cal_experiment_id": cal_id,
        "test_experiment_id": test_id,
        "threshold": threshold,
        "cal_coverage": cal_cov,
        "cal_risk": cal_risk,
        "coverage": cov,
        "risk": risk,
        "generalized_risk": gen,
        "accepted": acc,
        "violated": violated,
        "violated_margin": margin,
    }


def test_risk_control_rows_by_hand(run, warehouse_path, run_cli):
    doc = _json(run_cli, "risk-control", "--input", run, *RC_FLAGS, "--warehouse", warehouse_path)
    assert (doc["command"], doc["command_id"], doc["inputs"], doc["csf"]) == (
        "risk-control",
        1,
        ["demo"],
        "confidence",
    )
    # experiments in file order: seed 1 cal, test, ood, seed 2 cal, test, ood
    # certified: the first candidate (k = 1, no loss) has p = exp(-2·0.25²) > 0.1: accept nothing.
    # uncertified: last cal point with L/k <= 0.25 is (k 4, L 1) at 0.6; crc: L + 1 <= 0.25·6.
    assert doc["rows"] == [
        _row(1, "certified", None, 0.0, 0.0, 0.0, 0.0, 0.0, 0, False, False, 1, 2),
        _row(2, "certified", None, 0.0, 0.0, 0.0, 0.0, 0.0, 0, False, False, 4, 5),
        _row(1, "uncertified", 0.6, 0.8, 0.25, 0.8, 0.25, 0.2, 4, False, False, 1, 2),
        _row(2, "uncertified", 0.6, 0.8, 0.25, 0.8, 0.5, 0.4, 4, True, True, 4, 5),
        _row(1, "crc", 0.7, 0.6, 0.0, 0.6, 1 / 3, 0.2, 3, False, False, 1, 2),
        _row(2, "crc", 0.7, 0.6, 0.0, 0.6, 2 / 3, 0.4, 3, True, True, 4, 5),
    ]
    unc = doc["summary"][1]
    assert unc == {
        "method": "a",
        "alpha": 0.25,
        "rule": "uncertified",
        "num_seeds": 2,
        "num_violations": 1,
        "violation_rate": 0.5,
        "margin": 0.1,
        "num_violations_margin": 1,
        "violation_rate_margin": 0.5,
        "mean_risk": 0.375,
        "std_risk": 0.125,
        "mean_coverage": 0.8,
        "std_coverage": 0.0,
        "mean_generalized_risk": pytest.approx(0.3),
        "std_generalized_risk": pytest.approx(0.1),
        "seeds": [1, 2],
    }
    assert [(s["rule"], s["violation_rate"]) for s in doc["summary"]] == [
        ("certified", 0.0),
        ("uncertified", 0.5),
        ("crc", 0.5),
    ]


def test_risk_control_stores_the_json_rows(run, warehouse_path, run_cli, sql, tmp_path):
    out = tmp_path / "rc.json"
    doc = _json(
        run_cli, "risk-control", "--input", run, *RC_FLAGS, "--output", out, "--warehouse", warehouse_path
    )
    assert json.loads(out.read_text()) == doc
    cols = list(doc["rows"][0])
    stored = sql(
        warehouse_path,
        f"SELECT {', '.join(cols)} FROM risk_control_results ORDER BY method, alpha, "
        "CASE rule WHEN 'certified' THEN 0 WHEN 'uncertified' THEN 1 ELSE 2 END, seed",
    )
    assert [dict(zip(cols, r, strict=True)) for r in stored] == doc["rows"]
    ((command, inputs, options),) = sql(warehouse_path, "SELECT command, inputs, options FROM command_runs")
    assert (command, json.loads(inputs), json.loads(options)) == ("risk-control", ["demo"], doc["options"])
    assert doc["options"] == {
        "methods": [],
        "alphas": [0.25],
        "delta": 0.1,
        "bound": "hoeffding",
        "procedure": "fixed-sequence",
        "candidates": 5,
        "cal_split": "cal",
        "test_split": "test",
        "violation_margin": 0.1,
        "confidence": None,
        "split_seed": 0,
        "risks": [],
        "group": None,
    }


def test_risk_control_console_table(run, warehouse_path, run_cli):
    r = run_cli(["risk-control", "--input", run, *RC_FLAGS, "--warehouse", warehouse_path])
    assert (r.exit_code, r.stderr) == (0, "")
    lines = [line.rstrip() for line in r.stdout.splitlines()]
    assert (
        lines[0] == "risk-control (confidence; hoeffding, fixed-sequence, delta 0.1, cal -> test; command 1)"
    )
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in lines if line.startswith("│")]
    assert cells == [
        ["a", "0.25", "certified", "2", "0.0%", "0.0%", "0.0 ± 0.0%", "0.0000 ± 0.0000"],
        ["a", "0.25", "uncertified", "2", "50.0%", "50.0%", "80.0 ± 0.0%", "0.3750 ± 0.1250"],
        ["a", "0.25", "crc", "2", "50.0%", "50.0%", "60.0 ± 0.0%", "0.5000 ± 0.1667"],
    ]


def _ood_expected(seed_conf: list[float], target: float) -> tuple[float, float, float]:
    ids = np.array(seed_conf)
    tau = float(np.quantile(ids, 1 - target))
    return tau, float(np.mean(ids >= tau)), float(np.mean(np.array(OOD) >= tau))


def test_ood_rows_by_hand_and_stored(run, warehouse_path, run_cli, sql):
    doc = _json(
        run_cli,
        "ood",
        "--input",
        run,
        "--id-coverage",
        "0.6,0.8",
        "--thresholds",
        "0.5",
        "--warehouse",
        warehouse_path,
    )
    ids = [c for c, _ in TEST[1]]
    first = doc["seeds"][0]
    tau, id_acc, ood_acc = _ood_expected(ids, 0.6)
    assert (tau, id_acc, ood_acc) == (pytest.approx(0.71), 0.6, 1 / 3)
    assert first["rows"][0] == {
        "method": "a",
        "seed": 1,
        "id_coverage_target": 0.6,
        "threshold": tau,
        "id_coverage_actual": 0.6,
        "ood_accept_rate": 1 / 3,
        "dar": 1 / 3,
        "safety_ratio": 0.6 / (1 / 3 + 1e-8),
    }
    assert first["dar_at_thresholds"] == [
        {
            "method": "a",
            "seed": 1,
            "threshold": 0.5,
            "id_accept_rate": 0.8,
            "ood_accept_rate": 2 / 3,
            "dar": 2 / 3,
        }
    ]
    # ID positive: 10 of the 15 (ID, OOD) pairs rank the ID sample higher, no ties
    assert (first["auroc"], first["fpr_at_95_tpr"]) == (pytest.approx(10 / 15), 2 / 3)
    summary = doc["summary"][0]
    assert (summary["method"], summary["seeds"], summary["mean_auroc"], summary["std_auroc"]) == (
        "a",
        [1, 2],
        pytest.approx(10 / 15),
        0.0,
    )
    cols = [
        "method",
        "seed",
        "kind",
        "target",
        "id_coverage_target",
        "threshold",
        "id_coverage_actual",
        "ood_accept_rate",
        "dar",
        "safety_ratio",
        "auroc",
        "fpr_at_95_tpr",
    ]
    stored = sql(
        warehouse_path, f"SELECT {', '.join(cols)} FROM ood_results ORDER BY method, seed, kind, target"
    )
    expected = sorted(stored_rows(doc), key=lambda r: (r["method"], r["seed"], r["kind"], r["target"]))
    assert [dict(zip(cols, r, strict=True)) for r in stored] == [{c: e[c] for c in cols} for e in expected]
    assert len(stored) == 6


def test_compare_markdown_and_csv(run, warehouse_path, run_cli, sql):
    args = [
        "compare",
        "--input",
        run,
        "--alpha",
        "0.25",
        "--candidates",
        "5",
        "--bound",
        "hoeffding",
        "--id-coverage",
        "0.6",
        "--warehouse",
        warehouse_path,
    ]
    r = run_cli([*args, "--format", "json"])
    assert (r.exit_code, r.stderr) == (0, "")
    (row,) = json.loads(r.stdout)["rows"]
    # Coverage@Risk(0.25) on test: seed 1's last point with L/k <= 0.25 is (k 4, L 1): 0.8;
    # seed 2's points (k, L) = (1,1),(2,2),(3,2),(4,2),(5,2) have none: 0
    assert row["coverage_at_risk_mean"] == pytest.approx(0.4)
    assert row["coverage_at_risk_std"] == pytest.approx(0.4)
    assert (row["violation_rate"], row["ood_accept_at_id_0.6"]) == (0.0, 1 / 3)
    # AURC from v_metrics: plateau trapezoid of the test curve (docs/metrics.md), checked by hand
    aurcs = [_aurc([c for c, _ in TEST[s]], [loss for _, loss in TEST[s]]) for s in (1, 2)]
    assert row["aurc_mean"] == pytest.approx(np.mean(aurcs), rel=1e-12)
    assert row["aurc_std"] == pytest.approx(np.std(aurcs), rel=1e-12)
    # and bit for bit what the warehouse view v_metrics reports for the two test experiments
    view = [
        a
        for (a,) in sql(
            warehouse_path,
            "SELECT aurc_full FROM v_metrics WHERE split = 'test' AND "
            "domain = 'id' AND csf = 'confidence' ORDER BY seed",
        )
    ]
    assert (row["aurc_mean"], row["aurc_std"]) == (float(np.mean(view)), float(np.std(view)))
    md = run_cli([*args, "--format", "markdown"])
    assert md.stdout.splitlines()[:2] == [
        "| Method | Coverage@Risk(0.25) | Violation Rate | OOD@60% ID | AURC |",
        "|---|---|---|---|---|",
    ]
    assert md.stdout.splitlines()[2] == (
        f"| a | 40.0 ± 40.0% | 0.0% | 33.3% | {np.mean(aurcs):.4f} ± {np.std(aurcs):.4f} |"
    )
    csv_out = run_cli([*args, "--format", "csv"]).stdout.splitlines()
    assert csv_out[0] == (
        "method,seeds,coverage_at_risk_mean,coverage_at_risk_std,violation_rate,"
        "ood_accept_at_id_0.6,aurc_mean,aurc_std"
    )
    assert csv_out[1].startswith("a,1;2,0.4,0.4,0.0,0.3333333333333333,")


def _aurc(conf: list[float], loss: list[float]) -> float:
    """docs/metrics.md's plateau trapezoid with the (0, first risk) augmentation, distinct confidences."""
    order = sorted(range(len(conf)), key=lambda i: -conf[i])
    n, pts, total = len(conf), [], 0.0
    for k, i in enumerate(order, 1):
        total += loss[i]
        pts.append((k / n, total / k))
    area, (c0, r0) = 0.0, (0.0, pts[0][1])
    for c, r in pts:
        area += (c - c0) * (r + r0) / 2
        c0, r0 = c, r
    return area


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["risk-control", "--alpha", "1.5"], 2, "--alpha 1.5 is outside (0, 1)"),
        (
            ["risk-control", "--bound", "bentkus"],
            2,
            "--bound bentkus: expected one of binomial, hoeffding, hoeffding-bentkus",
        ),
        (
            ["risk-control", "--procedure", "sidak"],
            2,
            "--procedure sidak: expected one of fixed-sequence, bonferroni, holm, split-fixed-sequence",
        ),
        (
            ["risk-control", "--cal-split", "test"],
            2,
            "--cal-split and --test-split are both test; they must differ",
        ),
        (
            ["risk-control", "--confidence", "msp"],
            2,
            "unknown confidence 'msp': run demo method a seed 1 split cal domain id has confidence",
        ),
        (["risk-control", "--method", "b"], 1, "--method b: no input has that method (available: a)"),
        (["ood", "--id-coverage", "1.2"], 2, "--id-coverage 1.2 must lie in [0, 1]"),
        (["ood", "--split", "cal"], 1, "method a seed 1 has no ood experiment in split cal"),
        (["compare", "--format", "xml"], 2, "--format xml: expected one of table, markdown, csv, json"),
    ],
)
def test_usage_and_input_errors(run, warehouse_path, run_cli, take_snapshot, args, code, message):
    assert run_cli(["ingest", run, "--warehouse", warehouse_path]).exit_code == 0
    before = take_snapshot(warehouse_path)
    r = run_cli([*args, "--input", "demo", "--warehouse", warehouse_path])
    assert (r.exit_code, r.stdout, r.stderr) == (code, "", f"error: {message}\n")
    assert take_snapshot(warehouse_path) == before


@pytest.mark.parametrize(
    ("bound", "cal_loss", "message"),
    [
        ("hoeffding", {2: 1.5}, "loss 1.5 at sample 2 is outside [0, 1], which risk control needs"),
        ("binomial", {0: 0.5}, "loss 0.5 at sample 0 is not 0 or 1, which the binomial bound needs"),
    ],
)
def test_losses_the_bound_cannot_take_are_refused(
    tmp_path, warehouse_path, run_cli, take_snapshot, bound, cal_loss, message
):
    path = _csv(tmp_path / "bad.csv", cal_loss=cal_loss)
    assert run_cli(["migrate", "--warehouse", warehouse_path]).exit_code == 0
    before = take_snapshot(warehouse_path)
    r = run_cli(["risk-control", "--input", path, "--bound", bound, "--warehouse", warehouse_path])
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr == f"error: run bad method a seed 1 split cal domain id: {message}\n"
    assert take_snapshot(warehouse_path) == before  # the file ingested on the fly is not kept


def test_a_seed_without_a_test_split_is_refused(tmp_path, warehouse_path, run_cli, take_snapshot):
    path = _csv(tmp_path / "half.csv", drop_test_seed=2)
    assert run_cli(["migrate", "--warehouse", warehouse_path]).exit_code == 0
    before = take_snapshot(warehouse_path)
    r = run_cli(["risk-control", "--input", path, "--warehouse", warehouse_path])
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr == "error: method a seed 2 has an id experiment in split cal but none in split test\n"
    assert take_snapshot(warehouse_path) == before


def test_an_unwritable_output_stores_nothing(run, tmp_path, warehouse_path, run_cli, take_snapshot):
    assert run_cli(["ingest", run, "--warehouse", warehouse_path]).exit_code == 0
    before = take_snapshot(warehouse_path)
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = run_cli(["ood", "--input", "demo", "--output", blocker / "x.json", "--warehouse", warehouse_path])
    assert r.exit_code == 2
    assert r.stderr.startswith(f"error: --output {blocker / 'x.json'}: cannot write the artifact: ")
    assert take_snapshot(warehouse_path) == before


def _cells(stdout: str) -> list[list[str]]:
    return [
        [c.strip() for c in line.split("│")[1:-1]] for line in stdout.splitlines() if line.startswith("│")
    ]


def test_ood_and_compare_console_tables(run, warehouse_path, run_cli):
    r = run_cli(["ood", "--input", run, "--id-coverage", "0.6,0.8", "--warehouse", warehouse_path])
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout.splitlines()[0].rstrip() == "ood (confidence; split test; command 1)"
    # both seeds share their test confidences: tau(0.6) = 0.71, tau(0.8) = 0.58, OOD 0.9 only
    assert _cells(r.stdout) == [["a", "2", "33.3 ± 0.0%", "33.3 ± 0.0%", "0.6667 ± 0.0000", "66.7 ± 0.0%"]]
    head = [c.strip() for c in r.stdout.splitlines()[2].split("┃")[1:-1]]
    assert head == ["method", "seeds", "OOD@60% ID", "OOD@80% ID", "AUROC", "FPR@95%TPR"]
    r = run_cli(
        ["compare", "--input", "demo", "--alpha", "0.25", "--id-coverage", "", "--warehouse", warehouse_path]
    )
    assert (r.exit_code, r.stderr) == (0, "")
    assert (
        r.stdout.splitlines()[0].rstrip()
        == "compare (confidence; test split; certified: hoeffding-bentkus, delta 0.1)"
    )
    ((method, seeds, car, viol, _aurc_cell),) = _cells(r.stdout)
    assert (method, seeds, car, viol) == ("a", "2", "40.0 ± 40.0%", "0.0%")


def test_phq8_runs_and_duplicate_keys_are_refused(
    run, tmp_path, warehouse_path, run_cli, take_snapshot, shared_dir
):
    worked = shared_dir / "fixtures" / "runs" / "worked_example.json"
    copy = tmp_path / "copy.csv"
    copy.write_text(run.read_text().replace(",0.3,", ",0.31,"))  # other content: another run
    for path in (run, copy, worked):
        assert run_cli(["ingest", path, "--warehouse", warehouse_path]).exit_code == 0
    before = take_snapshot(warehouse_path)
    r = run_cli(["ood", "--input", "worked01", "--warehouse", warehouse_path])
    assert (r.exit_code, r.stderr) == (
        1,
        "error: --input worked01: run worked01 is a PHQ-8 run, not a per-sample run\n",
    )
    r = run_cli(["risk-control", "--input", "demo", "--input", "copy", "--warehouse", warehouse_path])
    assert (r.exit_code, r.stderr) == (
        1,
        "error: runs copy and demo both hold method a seed 1 split cal domain id; pass only one of them\n",
    )
    assert take_snapshot(warehouse_path) == before


def test_several_score_columns_need_a_choice(tmp_path, warehouse_path, run_cli):
    path = tmp_path / "two.csv"
    path.write_text(
        "split,domain,sample_id,confidence_msp,confidence_energy,correct\n"
        + "".join(
            f"{s},{d},{i},0.{i},0.{9 - i},{i % 2}\n"
            for s in ("cal", "test")
            for d in ("id", "ood")
            for i in range(4)
        )
    )
    r = run_cli(["ood", "--input", path, "--warehouse", warehouse_path])
    assert (r.exit_code, r.stderr) == (
        2,
        "error: the inputs have several confidence columns (energy, msp); choose one with --confidence\n",
    )
    doc = _json(run_cli, "ood", "--input", path, "--confidence", "energy", "--warehouse", warehouse_path)
    assert (doc["csf"], doc["command_id"]) == ("energy", 1)


def test_inputs_without_the_splits_say_so(tmp_path, warehouse_path, run_cli):
    path = tmp_path / "only_test.csv"
    path.write_text("sample_id,confidence_a,confidence_b,correct\n1,0.9,0.1,1\n2,0.2,0.3,0\n")
    r = run_cli(["risk-control", "--input", path, "--warehouse", warehouse_path])
    assert (r.exit_code, r.stderr) == (
        1,
        "error: method only_test seed 0 has an id experiment in split test but none in split cal\n",
    )
    r = run_cli(["ood", "--input", path, "--warehouse", warehouse_path])
    assert (r.exit_code, r.stderr) == (
        1,
        "error: method only_test seed 0 has no ood experiment in split test\n",
    )
