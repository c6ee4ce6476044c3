"""Calibration end to end (docs/calibration.md): hand-written calibrator files applied with exact
confidences, `riskcov calibrate` → `evaluate --calibration` against a pure-Python oracle, and
every refusal with its exact line (the warehouse unchanged)."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest
from metrics_support import Unit, areas, participant, run_doc, working_points, write_json

from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.scoring.choose import choose
from riskcov.scoring.confidences import item_confidences_sql

ITEMS = ["NoInterest", "Depressed", "Sleep", "Tired", "Appetite", "Failure", "Concentrating", "Moving"]
PIDS = list(range(1, 13))


def signals(pid: int, salt: int) -> list[dict[str, Any]]:
    return [
        {
            "llm_evidence_count": (pid + i + salt) % 4,
            "token_msp": ((pid * i + salt) % 9) / 8,
            "verbalized_confidence": None if (pid + i) % 7 == 0 else 1 + (pid + 3 * i + salt) % 5,
        }
        for i in range(8)
    ]


def person(pid: int, salt: int) -> dict[str, Any]:
    preds = [None if (pid + i + salt) % 5 == 0 else (pid * 3 + i * (salt + 1)) % 4 for i in range(8)]
    gts = [(pid + 2 * i) % 4 for i in range(8)]
    return participant(pid, preds, gts, signals(pid, salt))


DOC = run_doc(
    "cal", [("zero_shot", [person(p, 0) for p in PIDS]), ("few_shot", [person(p, 1) for p in PIDS])]
)


@pytest.fixture
def setup(tmp_path: Path, run_cli: Any) -> tuple[Path, Path]:
    """A warehouse with run `cal` ingested, and the run file."""
    run = write_json(tmp_path / "cal.json", DOC)
    wh = tmp_path / "w.duckdb"
    assert run_cli(["ingest", run, "--warehouse", wh]).exit_code == 0
    return wh, run


# ---- a pure-Python oracle of docs/calibration.md --------------------------------------------------------


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def clamp(x: float) -> float:
    return min(max(x, 0.0), 1.0)


def feature(sig: dict[str, Any], name: str, normalise: bool) -> float:
    v = sig.get(name)
    default = 0.0 if "similarity" in name else 3.0 if "confidence" in name else 0.0
    x = default if v is None else float(v)
    return clamp((x - 1.0) / 4.0) if normalise and name == "verbalized_confidence" else x


def apply(doc: dict[str, Any], xs: list[float]) -> float:
    model = doc.get("model", {})
    if doc["method"] == "temperature_scaling":
        t = model.get("temperature", doc.get("temperature"))
        c = min(max(xs[0], 1e-6), 1 - 1e-6)
        return sigmoid(math.log(c / (1 - c)) / t)
    if doc["method"] == "isotonic":
        kx, ky, x = model["x_thresholds"], model["y_thresholds"], xs[0]
        if x < kx[0]:
            return clamp(ky[0])
        for (x0, y0), (x1, y1) in itertools.pairwise(zip(kx, ky, strict=True)):
            if x < x1:
                return clamp((y1 - y0) / (x1 - x0) * (x - x0) + y0)
        return clamp(ky[-1])
    sc = model["scaler"]
    z = model["intercept"] + sum(
        ((x - m) / s) * w for x, m, s, w in zip(xs, sc["mean"], sc["std"], model["coefficients"], strict=True)
    )
    link = model.get("link", "identity" if doc["target"] == "loss" else "sigmoid")
    return sigmoid(z) if link == "sigmoid" else clamp(z)


def verbalized(sig: dict[str, Any]) -> float:
    v = sig.get("verbalized_confidence")
    return 0.5 if v is None else clamp((v - 1) / 4)


def oracle(doc: dict[str, Any], selector: str, mode: str) -> dict[tuple[int, int], float]:
    """(participant, item) -> the calibrated confidence of every predicted item of `mode`."""
    (exp,) = [e for e in DOC["experiments"] if e["provenance"]["mode"] == mode]
    out = {}
    for r in exp["results"]["results"]:
        for idx, name in enumerate(ITEMS):
            if r["predicted_items"][name] is None:
                continue
            sig = r["item_signals"][name]
            if selector == "verbalized_calibrated":
                xs = [verbalized(sig)]
            elif selector == "calibrated:token_msp":
                xs = [clamp(sig["token_msp"])]
            else:
                normalise = doc["method"] == "temperature_scaling"
                xs = [feature(sig, f, normalise) for f in doc["features"]]
            out[(r["participant_id"], idx)] = apply(doc, xs)
    return out


def confidences(wh: Path, selector: str, calibration: str, mode: str) -> dict[tuple[int, int], float]:
    """The confidences evaluate computes: the chosen CSF's SQL over the experiment's items."""
    with open_warehouse(wh) as con:
        (c,) = choose(con, selector, calibration).csfs
        where = f"i.experiment_id = (SELECT experiment_id FROM experiments WHERE mode = '{mode}')"
        scored = item_confidences_sql(c, labels="", where=where)
        rows = con.execute(
            f"SELECT participant_id, item_index, confidence FROM ({scored})"
            " WHERE confidence IS NOT NULL ORDER BY participant_id, item_index"
        ).fetchall()
    return {(p, i): v for p, i, v in rows}


# ---- hand-written calibrators, exact confidences --------------------------------------------------

TEMPERATURE = {
    "method": "temperature_scaling",
    "features": ["verbalized_confidence"],
    "target": "correctness",
    "model": {"temperature": 0.5},
}
# the reference's verbalized-confidence calibrator: a top-level temperature and nothing else
REFERENCE_TEMPERATURE = {"method": "temperature_scaling", "temperature": 2.0}
# the reference's trainer (older files): no link, extra keys
REFERENCE_LOGISTIC = {
    "schema_version": 1,
    "method": "logistic",
    "features": ["token_msp", "llm_evidence_count"],
    "target": "correctness",
    "model": {
        "coefficients": [2.0, -1.0],
        "intercept": 0.5,
        "scaler": {"mean": [0.5, 1.0], "std": [0.25, 2.0]},
    },
    "training_metadata": {"n": 100},
}
IDENTITY = {
    "method": "logistic",
    "features": ["llm_evidence_count"],
    "target": "loss",
    "model": {
        "coefficients": [0.25],
        "intercept": 0.5,
        "link": "identity",
        "scaler": {"mean": [1.0], "std": [0.5]},
    },
}
ISOTONIC = {
    "method": "isotonic",
    "features": ["llm_evidence_count"],
    "target": "correctness",
    "model": {"x_thresholds": [0.5, 2.0, 2.5], "y_thresholds": [0.2, 0.6, 0.9]},
}


@pytest.mark.parametrize(
    ("doc", "selector"),
    [
        (TEMPERATURE, "calibrated"),
        (TEMPERATURE, "verbalized_calibrated"),
        (TEMPERATURE, "calibrated:token_msp"),
        (REFERENCE_TEMPERATURE, "verbalized_calibrated"),
        (REFERENCE_LOGISTIC, "calibrated"),
        (IDENTITY, "calibrated"),
        (ISOTONIC, "calibrated"),
        (ISOTONIC, "calibrated:token_msp"),
    ],
)
def test_hand_written_calibrator_gives_exact_confidences(setup, tmp_path, doc, selector):
    wh, _ = setup
    path = write_json(tmp_path / "c.json", doc)
    got = confidences(wh, selector, str(path), "few_shot")
    want = oracle(doc, selector, "few_shot")
    assert list(got) == list(want)
    assert got == pytest.approx(want, rel=1e-13, abs=1e-15)


def test_hand_values_of_the_isotonic_and_temperature_files():
    # the oracle itself against values computed by hand
    assert [apply(ISOTONIC, [x]) for x in (0.0, 1.0, 2.0, 2.25, 3.0)] == pytest.approx(
        [0.2, 1 / 3, 0.6, 0.75, 0.9]
    )
    assert apply(TEMPERATURE, [0.75]) == pytest.approx(0.9)  # sigmoid(2 ln 3)
    assert apply(REFERENCE_TEMPERATURE, [0.9]) == pytest.approx(0.75)  # sigmoid(ln 9 / 2)
    assert apply(IDENTITY, [3.0]) == 1.0 and apply(IDENTITY, [0.0]) == 0.0  # 1.5 and 0 clipped


# ---- fit -> evaluate -> the oracle's metrics ------------------------------------------------------


def units(conf: dict[tuple[int, int], float], mode: str) -> list[Unit]:
    (exp,) = [e for e in DOC["experiments"] if e["provenance"]["mode"] == mode]
    out = []
    for r in exp["results"]["results"]:
        for idx, name in enumerate(ITEMS):
            pred = r["predicted_items"][name]
            if pred is not None and (r["participant_id"], idx) in conf:
                out.append(
                    Unit(
                        conf[(r["participant_id"], idx)],
                        abs(pred - r["ground_truth_items"][name]),
                        r["participant_id"],
                        idx,
                    )
                )
    return out


@pytest.mark.parametrize(
    ("method", "features", "target", "selector"),
    [
        ("isotonic", "llm_evidence_count", "correctness", "calibrated"),
        ("logistic", "token_msp,llm_evidence_count", "near_correct", "calibrated"),
        ("platt", "token_msp", "loss", "calibrated"),
        ("temperature", "verbalized_confidence", "correctness", "verbalized_calibrated"),
    ],
)
def test_round_trip_fit_then_evaluate_matches_the_oracle(
    setup, tmp_path, run_cli, sql, method, features, target, selector
):
    wh, _ = setup
    out = tmp_path / "cal.json"
    fit = run_cli(
        [
            "calibrate",
            "--input",
            "cal",
            "--mode",
            "zero_shot",
            "--method",
            method,
            "--features",
            features,
            "--target",
            target,
            "--output",
            out,
            "--warehouse",
            wh,
        ]
    )
    assert (fit.exit_code, fit.stderr) == (0, "")
    doc = json.loads(out.read_text())
    lines = fit.stdout.splitlines()
    assert lines[0].startswith(
        f"calibrator 1: {doc['method']} of {features.replace(',', ', ')} (target {target}) "
        "on run cal, mode zero_shot, "
    )
    assert lines[1:3] == [f"written to {out}", f"{'metric':<8}{'before':>12}{'after':>12}"]
    sha = hashlib.sha256(out.read_bytes()).hexdigest()
    # the stored copy is the file, byte for byte
    assert sql(wh, "SELECT calibrator_id, method, sha256, CAST(artifact AS VARCHAR) FROM calibrators") == [
        (1, doc["method"], sha, out.read_text())
    ]
    # the fit's own metrics: NLL and Brier of the fitted confidences on the fitting items
    train = oracle(doc, selector if selector != "verbalized_calibrated" else "calibrated", "zero_shot")
    if method == "temperature":  # items with a null verbalized confidence are left out
        (z,) = [e for e in DOC["experiments"] if e["provenance"]["mode"] == "zero_shot"]
        nulls = {
            (r["participant_id"], i)
            for r in z["results"]["results"]
            for i, n in enumerate(ITEMS)
            if r["item_signals"][n]["verbalized_confidence"] is None
        }
        train = {k: v for k, v in train.items() if k not in nulls}
    ok = 1 if target == "near_correct" else 0
    correct = {(u.pid, u.idx): float(u.loss <= ok) for u in units(train, "zero_shot")}
    n = len(train)
    brier = sum((train[k] - correct[k]) ** 2 for k in train) / n
    clip = {k: min(max(v, 1e-6), 1 - 1e-6) for k, v in train.items()}
    nll = -sum(correct[k] * math.log(clip[k]) + (1 - correct[k]) * math.log(1 - clip[k]) for k in train) / n
    assert doc["fitted_on"] == {
        "run": "cal",
        "sha256": doc["fitted_on"]["sha256"],
        "mode": "zero_shot",
        "n": n,
    }
    assert (doc["metrics"]["brier_after"], doc["metrics"]["nll_after"]) == pytest.approx(
        (brier, nll), rel=1e-12
    )
    # evaluate another experiment with the stored id: the oracle's areas
    res = run_cli(
        [
            "evaluate",
            "--input",
            "cal",
            "--mode",
            "few_shot",
            "--confidence",
            selector,
            "--calibration",
            "1",
            "--bootstrap-resamples",
            "0",
            "--loss",
            "abs",
            "--json",
            "--warehouse",
            wh,
        ]
    )
    assert (res.exit_code, res.stderr) == (0, "")
    art = json.loads(res.stdout)
    assert art["calibrator"] == {
        "id": 1,
        "sha256": sha,
        "method": doc["method"],
        "features": doc["features"],
    }
    m = art["confidence_variants"][selector]
    us = units(oracle(doc, selector, "few_shot"), "few_shot")
    want = areas(
        working_points(us, 8 * len(PIDS), 1, "plateau-trapezoid"), 8 * len(PIDS), 0.5, "plateau-trapezoid"
    )
    assert m["cmax"] == pytest.approx(len(us) / (8 * len(PIDS)))
    assert (m["aurc_full"], m["augrc_full"]) == pytest.approx(
        (want["aurc_full"], want["augrc_full"]), rel=1e-12
    )


# ---- refusals -------------------------------------------------------------------------------------


def ev(wh: Path, *args: Any) -> list[Any]:
    return [
        "evaluate",
        "--input",
        "cal",
        "--mode",
        "few_shot",
        "--bootstrap-resamples",
        "0",
        *args,
        "--warehouse",
        wh,
    ]


LOGISTIC_FILE = {**REFERENCE_LOGISTIC}


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["--confidence", "calibrated"],
            2,
            "--confidence calibrated needs --calibration FILE|ID (a calibrator)",
        ),
        (
            ["--calibration", "{logistic}"],
            2,
            "--calibration is used only by --confidence calibrated, verbalized_calibrated, "
            "calibrated:<csf> or all",
        ),
        (
            ["--confidence", "verbalized_calibrated", "--calibration", "{logistic}"],
            2,
            "--confidence verbalized_calibrated needs a temperature_scaling calibrator; "
            "{logistic} is logistic",
        ),
        (
            ["--confidence", "calibrated:token_msp", "--calibration", "{logistic}"],
            2,
            "--confidence calibrated:token_msp: a logistic calibrator cannot calibrate one CSF's value "
            "(temperature_scaling or isotonic can); {logistic} is logistic",
        ),
        (
            ["--confidence", "calibrated", "--calibration", "{reference}"],
            2,
            "{reference}: the calibrator names no features; use it as verbalized_calibrated "
            "or calibrated:<csf>",
        ),
        (
            ["--confidence", "calibrated", "--calibration", "{malformed}"],
            1,
            "{malformed}: model.intercept is missing",
        ),
        (
            ["--confidence", "calibrated", "--calibration", "7"],
            1,
            "--calibration 7: no such file, and no stored calibrator with that id "
            "(riskcov calibrate stores them)",
        ),
        (
            ["--confidence", "calibrated", "--calibration", "{lacking}"],
            1,
            "confidence calibrated cannot be computed: run cal, experiment few_shot, participant 1, "
            "item NoInterest: "
            "no item has signal token_pe, a feature of calibrator {lacking} ({n} predicted item(s) affected)",
        ),
        (
            ["--confidence", "calibrated:nope", "--calibration", "{reference}"],
            2,
            "--confidence nope: unknown confidence function; choose default, all, one of consistency, "
            "consistency_inverse_std, hybrid_consistency, hybrid_evidence_similarity, "
            "hybrid_verbalized, llm, "
            "retrieval_similarity_max, retrieval_similarity_mean, token_energy, token_msp, token_pe, "
            "total_evidence, verbalized, or secondary:<a>+<b>:average|product",
        ),
    ],
)
def test_evaluate_refusals(setup, tmp_path, run_cli, take_snapshot, args, code, message):
    wh, _ = setup
    files = {
        "logistic": write_json(tmp_path / "logistic.json", REFERENCE_LOGISTIC),
        "reference": write_json(tmp_path / "reference.json", REFERENCE_TEMPERATURE),
        "malformed": write_json(
            tmp_path / "malformed.json", {**IDENTITY, "model": {**IDENTITY["model"], "intercept": None} | {}}
        ),
        "lacking": write_json(tmp_path / "lacking.json", {**ISOTONIC, "features": ["token_pe"]}),
    }
    malformed = {**IDENTITY, "model": {k: v for k, v in IDENTITY["model"].items() if k != "intercept"}}
    write_json(files["malformed"], malformed)
    fill = {k: str(v) for k, v in files.items()}
    fill["n"] = str(
        sum(
            p is not None
            for r in DOC["experiments"][1]["results"]["results"]
            for p in r["predicted_items"].values()
        )
    )
    before = take_snapshot(wh)
    res = run_cli(ev(wh, *[a.format(**fill) for a in args]))
    assert (res.exit_code, res.stdout, res.stderr) == (code, "", f"error: {message.format(**fill)}\n")
    assert take_snapshot(wh) == before


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["--method", "svm", "--features", "token_msp"],
            2,
            "--method svm: choose temperature, platt, logistic or isotonic",
        ),
        (
            ["--method", "isotonic", "--features", "token_msp", "--target", "good"],
            2,
            "--target good: choose correctness, near_correct, loss",
        ),
        (
            ["--method", "isotonic", "--features", "token_msp,token_msp"],
            2,
            "--features token_msp,token_msp: a name is given twice",
        ),
        (
            ["--method", "isotonic", "--features", "token_msp,"],
            2,
            "--features: give signal names separated by commas, e.g. token_msp",
        ),
        (
            ["--method", "isotonic", "--features", "token_msp,llm_evidence_count"],
            2,
            "--method isotonic takes exactly one feature, got 2",
        ),
        (
            ["--method", "logistic", "--features", "token_pe"],
            1,
            "--features token_pe: run cal, experiment zero_shot has no predicted item with signal token_pe",
        ),
        (
            ["--method", "temperature", "--features", "llm_evidence_count"],
            1,
            "run cal, experiment zero_shot: temperature scaling needs probability-like values "
            "in [0, 1], got 2.0",
        ),
        (["--method", "isotonic", "--features", "token_msp", "--mode", "other"], 1, "NOCHECK"),
    ],
)
def test_calibrate_refusals(setup, run_cli, take_snapshot, args, code, message):
    wh, _ = setup
    before = take_snapshot(wh)
    mode = [] if "--mode" in args else ["--mode", "zero_shot"]  # an option given once
    res = run_cli(["calibrate", "--input", "cal", *mode, *args, "--warehouse", wh])
    assert (res.exit_code, res.stdout) == (code, "")
    if message != "NOCHECK":
        assert res.stderr == f"error: {message}\n"
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: ")
    assert take_snapshot(wh) == before


def test_all_adds_the_calibrated_variants_only_with_a_calibration(setup, tmp_path, run_cli):
    wh, _ = setup
    plain = json.loads(run_cli(ev(wh, "--confidence", "all", "--json")).stdout)
    assert not {"calibrated", "verbalized_calibrated"} & set(plain["confidence_variants"])
    assert "calibrator" not in plain
    path = write_json(tmp_path / "t.json", TEMPERATURE)
    res = run_cli(ev(wh, "--confidence", "all", "--calibration", path, "--json"))
    art = json.loads(res.stdout)
    assert list(art["confidence_variants"]) == sorted(art["confidence_variants"])
    assert {"calibrated", "verbalized_calibrated"} <= set(art["confidence_variants"])
    assert art["calibrator"]["path"] == str(path)
    assert art["options"]["calibration"] == str(path)
    # a calibrator that cannot give verbalized_calibrated: skipped under all, with the reason
    path = write_json(tmp_path / "i.json", ISOTONIC)
    art = json.loads(run_cli(ev(wh, "--confidence", "all", "--calibration", path, "--json")).stdout)
    assert art["skipped_variants"]["verbalized_calibrated"] == (
        f"--confidence verbalized_calibrated needs a temperature_scaling calibrator; {path} is isotonic"
    )
    assert "calibrated" in art["confidence_variants"]


@pytest.mark.parametrize("seeds", ["1", "1,2"], ids=["one-experiment", "several-experiments"])
def test_calibrate_on_a_per_sample_run_names_its_score_columns_and_its_experiments(tmp_path, run_cli, seeds):
    """A per-sample run's features are its score columns; a run of several experiments is
    chosen by the per-sample flags calibrate offers (--experiment-seed, ...)."""
    wh = tmp_path / "w.duckdb"
    rows = "".join(f"{sid},0.{k + 5},1,{seed}\n" for seed in seeds.split(",") for k, sid in enumerate("ab"))
    (tmp_path / "ps.csv").write_text("sample_id,confidence,correct,seed\n" + rows)
    assert run_cli(["ingest", tmp_path / "ps.csv", "--warehouse", wh]).exit_code == 0
    res = run_cli(
        ["calibrate", "--input", "ps", "--method", "isotonic", "--features", "llm", "--warehouse", wh]
    )
    expected = {
        "1": (
            1,
            "error: --features llm: run ps, experiment method ps, seed 1, split test, domain id has no "
            "score column llm (its CSFs: confidence; confidence_<name> columns are CSF <name>)\n",
        ),
        "1,2": (2, "error: --input ps: run ps has 2 experiments; choose one with --experiment-seed (1, 2)\n"),
    }[seeds]
    assert (res.exit_code, res.stderr) == expected
