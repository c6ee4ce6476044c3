"""docs/metrics.md: each confidence function's policy for a null or missing signal, its error line,
the skipping under `--confidence all`, and CSF values checked bit for bit on the curve."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from metrics_support import (
    BASE_CSFS,
    ITEMS,
    LLM,
    MISSING,
    SIM,
    csf_problem,
    csf_value,
    participant,
    run_doc,
    write_json,
)

FULL = {
    LLM: 2,
    SIM: 0.5,
    "retrieval_similarity_max": 0.75,
    "verbalized_confidence": 4,
    "token_msp": 0.875,
    "token_pe": 0.5,
    "token_energy": -0.25,
    "consistency_modal_confidence": 0.8,
    "consistency_score_std": 0.5,
    "retrieval_reference_count": 2,
    "evidence_source": "llm",
}
CMC, STD = "consistency_modal_confidence", "consistency_score_std"
PID, ITEM = 12, 3  # the predicted item whose signal is changed


def run_with(
    changes: dict[tuple[int, int], dict[str, Any]], *, abstain: tuple[int, ...] = (), run_id: str = "pol"
) -> dict[str, Any]:
    """Participants 11 and 12, every item predicted with FULL signals but for `changes`
    ({(pid, item_index): {key: value or MISSING}}); `abstain`: item indices of 12 abstained."""
    people = []
    for pid in (11, 12):
        signals = [dict(FULL, **changes.get((pid, i), {})) for i in range(8)]
        preds = [None if pid == PID and i in abstain else i % 4 for i in range(8)]
        people.append(participant(pid, preds, [(i + pid) % 4 for i in range(8)], signals))
    return run_doc(run_id, [("few_shot", people)])


@pytest.fixture
def evaluate(riskcov, tmp_path: Path, warehouse: Path):
    """`evaluate(doc, confidence, *flags, inputs=1)`: (outcome, artifact or None)."""

    def go(doc: dict[str, Any], confidence: str, *flags: str, inputs: int = 1):
        path = write_json(tmp_path / "run.json", doc)
        out = tmp_path / "artifact.json"
        out.unlink(missing_ok=True)
        r = riskcov(
            [
                "evaluate",
                *["--input", path] * inputs,
                "--confidence",
                confidence,
                "--loss",
                "abs",
                "--bootstrap-resamples",
                "0",
                "--output",
                out,
                "--warehouse",
                warehouse,
                *flags,
            ]
        )
        art = json.loads(out.read_text()) if out.exists() else None
        return r, art

    return go


def where(problem: str, pid: int = PID, item: int = ITEM, n: int = 1) -> str:
    """Where a CSF cannot be computed: run, experiment, participant, item name, signal."""
    return (
        f"run pol, experiment few_shot, participant {pid}, item {ITEMS[item]}: {problem} "
        f"({n} predicted item(s) affected)"
    )


# (csf, signal, "null" | "missing"): an error for that CSF
ERRORS = [
    ("llm", LLM, "null"),
    ("total_evidence", LLM, "null"),
    ("retrieval_similarity_mean", SIM, "missing"),
    ("retrieval_similarity_max", "retrieval_similarity_max", "missing"),
    ("hybrid_evidence_similarity", SIM, "missing"),
    ("hybrid_evidence_similarity", LLM, "null"),
    ("verbalized", "verbalized_confidence", "missing"),
    ("hybrid_verbalized", "verbalized_confidence", "missing"),
    ("hybrid_verbalized", SIM, "missing"),
    ("hybrid_verbalized", LLM, "null"),
    ("token_msp", "token_msp", "missing"),
    ("token_msp", "token_msp", "null"),
    ("token_pe", "token_pe", "missing"),
    ("token_pe", "token_pe", "null"),
    ("token_energy", "token_energy", "missing"),
    ("token_energy", "token_energy", "null"),
    ("consistency", CMC, "missing"),
    ("consistency", CMC, "null"),
    ("consistency_inverse_std", STD, "missing"),
    ("consistency_inverse_std", STD, "null"),
    ("hybrid_consistency", CMC, "missing"),
    ("hybrid_consistency", CMC, "null"),
    ("hybrid_consistency", SIM, "missing"),
    ("hybrid_consistency", LLM, "null"),
    ("secondary:verbalized+token_msp:product", "token_msp", "null"),
    ("secondary:llm+retrieval_similarity_max:average", "retrieval_similarity_max", "missing"),
]
# (csf, signal, state): replaced by the documented default, no error
FINE = [
    ("llm", LLM, "missing"),
    ("total_evidence", LLM, "missing"),
    ("retrieval_similarity_mean", SIM, "null"),
    ("retrieval_similarity_max", "retrieval_similarity_max", "null"),
    ("hybrid_evidence_similarity", SIM, "null"),
    ("hybrid_evidence_similarity", LLM, "missing"),
    ("verbalized", "verbalized_confidence", "null"),
    ("hybrid_verbalized", "verbalized_confidence", "null"),
    ("hybrid_verbalized", SIM, "null"),
    ("hybrid_verbalized", LLM, "missing"),
    ("hybrid_consistency", SIM, "null"),
    ("hybrid_consistency", LLM, "missing"),
]


def change(signal: str, state: str) -> dict[tuple[int, int], dict[str, Any]]:
    return {(PID, ITEM): {signal: None if state == "null" else MISSING}}


def changed(signal: str, state: str) -> dict[str, Any]:
    """FULL with `signal` null or removed."""
    sig = {k: v for k, v in FULL.items() if k != signal}
    if state == "null":
        sig[signal] = None
    return sig


def ids(cases: list[tuple[str, str, str]]) -> list[str]:
    return [f"{c}-{s}-{st}" for c, s, st in cases]


@pytest.mark.parametrize(("csf", "signal", "state"), ERRORS, ids=ids(ERRORS))
def test_an_unusable_signal_is_an_error_for_an_explicit_csf(
    evaluate, csf: str, signal: str, state: str
) -> None:
    assert csf_problem(csf, changed(signal, state)) == f"{signal} is {state}"
    r, art = evaluate(run_with(change(signal, state)), csf)
    assert (r.exit_code, r.stdout, r.crashed) == (1, "", False)
    problem = where(f"{signal} is {state}")
    assert r.stderr == f"error: confidence {csf} cannot be computed: {problem}\n"
    assert art is None


@pytest.mark.parametrize(("csf", "signal", "state"), FINE, ids=ids(FINE))
def test_a_null_or_missing_signal_takes_the_spec_default(evaluate, csf: str, signal: str, state: str) -> None:
    doc = run_with(change(signal, state))
    r, art = evaluate(doc, csf)
    assert (r.exit_code, r.stderr) == (0, "")
    assert art["confidence_variants"][csf]["curve"]["threshold"] == expected_thresholds(doc, csf)


def expected_thresholds(doc: dict[str, Any], csf: str, experiment: int = 0) -> list[float]:
    """The distinct CSF values of the predicted items, descending: the curve's thresholds."""
    values = set()
    for p in doc["experiments"][experiment]["results"]["results"]:
        for name in ITEMS:
            if p["predicted_items"][name] is not None:
                sig = p["item_signals"][name] if "item_signals" in p else None
                values.add(csf_value(csf, sig))
    return sorted(values, reverse=True)


def test_every_affected_item_is_counted_and_the_first_is_named(evaluate) -> None:
    doc = run_with({(12, 3): {"token_pe": None}, (11, 6): {"token_pe": None}, (12, 1): {"token_pe": None}})
    r, _ = evaluate(doc, "token_pe")
    assert r.exit_code == 1
    assert r.stderr == (
        f"error: confidence token_pe cannot be computed: {where('token_pe is null', pid=11, item=6, n=3)}\n"
    )


def test_the_right_input_of_a_pair_is_named(evaluate) -> None:
    left = run_with({})["experiments"][0]
    right = run_with(change("token_msp", "null"))["experiments"][0]
    right["provenance"]["mode"] = "zero_shot"
    doc = {"run_metadata": {"run_id": "pol"}, "experiments": [left, right]}
    r, art = evaluate(doc, "token_msp", "--mode", "few_shot", "--mode", "zero_shot", inputs=2)
    assert (r.exit_code, art) == (1, None)
    assert r.stderr == (
        "error: confidence token_msp cannot be computed: run pol, experiment "
        f"zero_shot, participant {PID}, item Tired: token_msp is null "
        "(1 predicted item(s) affected)\n"
    )


@pytest.mark.parametrize("csf", ["token_msp", "token_pe", "consistency", "hybrid_verbalized", "all"])
def test_an_abstained_item_may_have_null_or_missing_signals(evaluate, csf: str) -> None:
    doc = run_with(
        {(PID, ITEM): dict.fromkeys(FULL, None), (PID, 5): dict.fromkeys(FULL, MISSING)}, abstain=(ITEM, 5)
    )
    r, art = evaluate(doc, csf)
    assert (r.exit_code, r.stderr, r.crashed) == (0, "", False)
    assert art["skipped_variants"] == {}
    names = BASE_CSFS if csf == "all" else [csf]
    assert list(art["confidence_variants"]) == names
    for name in names:
        assert art["confidence_variants"][name]["curve"]["threshold"] == expected_thresholds(doc, name)


def test_a_run_without_item_signals(evaluate) -> None:
    """Files written before signals existed: llm counts 0 everywhere; token_msp is missing."""
    people = [
        participant(5, [1, None, 2, 3, 0, None, 1, 1], [1, 0, 0, 3, 2, 1, 1, 0]),
        participant(6, [0] * 8, [0] * 8),
    ]
    doc = run_doc("pol", [("few_shot", people)])
    r, art = evaluate(doc, "default")
    assert (r.exit_code, r.stderr) == (0, "")
    for name in ("llm", "total_evidence"):
        curve = art["confidence_variants"][name]["curve"]
        assert curve["threshold"] == [0.0]  # one plateau holding every predicted item
        assert curve["coverage"] == [14 / 16]
        assert curve["selective_risk"] == pytest.approx([5 / 14], rel=1e-12)
    r, art = evaluate(doc, "token_msp")
    assert (r.exit_code, art) == (1, None)
    assert r.stderr == (
        "error: confidence token_msp cannot be computed: "
        f"{where('token_msp is missing', pid=5, item=0, n=14)}\n"
    )


# ---------------------------------------------------------------- `--confidence all` skips

ALL_CASES = [
    ("llm", LLM, "null"),
    ("sim", SIM, "missing"),
    ("max", "retrieval_similarity_max", "missing"),
    ("verbalized", "verbalized_confidence", "missing"),
    ("msp", "token_msp", "null"),
    ("pe", "token_pe", "missing"),
    ("energy", "token_energy", "null"),
    ("cmc", CMC, "null"),
    ("std", STD, "missing"),
]


@pytest.mark.parametrize(("label", "signal", "state"), ALL_CASES, ids=[c[0] for c in ALL_CASES])
def test_all_skips_the_csfs_a_signal_breaks(evaluate, label: str, signal: str, state: str) -> None:
    doc = run_with(change(signal, state))
    sig = changed(signal, state)
    broken = {name: csf_problem(name, sig) for name in BASE_CSFS if csf_problem(name, sig)}
    assert broken  # every case breaks at least one CSF, and never all of them
    r, art = evaluate(doc, "all")
    assert (r.exit_code, r.crashed) == (0, False)
    assert r.stderr == "".join(
        f"skipped confidence {name}: {where(problem)}\n" for name, problem in sorted(broken.items())
    )
    assert art["skipped_variants"] == {name: where(p) for name, p in broken.items()}
    assert list(art["confidence_variants"]) == [n for n in BASE_CSFS if n not in broken]
    for name in art["confidence_variants"]:
        assert art["confidence_variants"][name]["curve"]["threshold"] == expected_thresholds(doc, name)


# ---------------------------------------------------------------- CSF values, bit for bit

# eight items with signals chosen to exercise clamps, nulls, the min(llm, 3) cap and
# operation order; item 0 and 1 give hybrid_verbalized 0.2 and 0.19999999999999998
# (0.4 * 0.5 vs 0.3 * (2 / 3): equal in real numbers, two plateaus in IEEE double)
VALUES: list[dict[str, Any]] = [
    {
        LLM: 0,
        SIM: None,
        "retrieval_similarity_max": 0.9,
        "verbalized_confidence": None,
        "token_msp": 0.3,
        "token_pe": 0.0,
        "token_energy": -0.1,
        CMC: 0.6,
        STD: 0.5,
    },
    {
        LLM: 2,
        SIM: None,
        "retrieval_similarity_max": None,
        "verbalized_confidence": 1,
        "token_msp": 1.3,
        "token_pe": 1.5,
        "token_energy": 0.2,
        CMC: 1.2,
        STD: 0.0,
    },
    {
        LLM: 5,
        SIM: 0.35,
        "retrieval_similarity_max": 0.7,
        "verbalized_confidence": 4,
        "token_msp": -0.2,
        "token_pe": 0.25,
        "token_energy": -2.0,
        CMC: 0.3,
        STD: 1.0,
    },
    {
        LLM: 1,
        SIM: 0.9,
        "retrieval_similarity_max": 1.0,
        "verbalized_confidence": 2.5,
        "token_msp": 0.55,
        "token_pe": 3.0,
        "token_energy": -0.5,
        CMC: 0.8,
        STD: 0.25,
    },
    {
        LLM: 3.0,
        SIM: 1.4,
        "retrieval_similarity_max": 0.2,
        "verbalized_confidence": 5,
        "token_msp": 0.9,
        "token_pe": 0.1,
        "token_energy": -0.05,
        CMC: 0.0,
        STD: 2,
    },
    {
        LLM: MISSING,
        SIM: 0.1,
        "retrieval_similarity_max": 0.1,
        "verbalized_confidence": 3,
        "token_msp": 0.7,
        "token_pe": 0.7,
        "token_energy": -1,
        CMC: 0.5,
        STD: 0.7,
    },
    {
        LLM: 1,
        SIM: 0.6,
        "retrieval_similarity_max": 0.6,
        "verbalized_confidence": 1.5,
        "token_msp": 0.5,
        "token_pe": 0.5,
        "token_energy": -0.3,
        CMC: 0.9,
        STD: 0.1,
    },
    {
        LLM: 2,
        SIM: 0.2,
        "retrieval_similarity_max": 0.3,
        "verbalized_confidence": 3.5,
        "token_msp": 0.2,
        "token_pe": 2.0,
        "token_energy": -0.7,
        CMC: 0.4,
        STD: 0.3,
    },
]


def values_doc() -> dict[str, Any]:
    return run_doc("vals", [("m", [participant(1, [0, 1, 2, 3, 0, 1, 2, 3], [0] * 8, VALUES)])])


def test_every_base_csf_value_is_the_spec_formula_in_ieee_double(evaluate) -> None:
    doc = values_doc()
    r, art = evaluate(doc, "all")
    assert (r.exit_code, r.stderr) == (0, "")
    assert list(art["confidence_variants"]) == BASE_CSFS
    for name in BASE_CSFS:
        assert art["confidence_variants"][name]["curve"]["threshold"] == expected_thresholds(doc, name), name


def test_hand_computed_values(evaluate) -> None:
    """A few values written out from the table of docs/metrics.md without the helper."""
    r, art = evaluate(values_doc(), "all")
    assert r.exit_code == 0
    thr = {n: set(m["curve"]["threshold"]) for n, m in art["confidence_variants"].items()}
    v = (2.5 - 1) / 4  # item 3: verbalized 2.5, llm 1, similarity 0.9
    assert min(max(0.4 * v + 0.3 * (1 / 3) + 0.3 * 0.9, 0.0), 1.0) in thr["hybrid_verbalized"]
    assert {0.2, 0.19999999999999998} <= thr["hybrid_verbalized"]  # items 0 and 1 stay apart
    assert 0.4 * 0.5 + 0.3 * 0.0 + 0.3 * 0.0 == 0.2
    assert 0.4 * 0.0 + 0.3 * (2 / 3) + 0.3 * 0.0 == 0.19999999999999998
    assert 1.4 in thr["retrieval_similarity_mean"]  # the raw signal, not clamped
    assert 0.0 in thr["retrieval_similarity_max"]  # item 1: null -> 0.0
    assert 5.0 in thr["llm"]  # llm itself is not capped; e is
    assert 0.5 * 1.0 + 0.5 * 1.0 in thr["hybrid_evidence_similarity"]  # item 4: e = 1, s = 1
    assert 0.5 in thr["verbalized"]  # item 0: null -> 0.5
    assert {1.0, 0.0} <= thr["token_msp"]  # 1.3 and -0.2 clamped
    assert 1 / (1 + 3.0) in thr["token_pe"]
    assert 1.0 in thr["token_energy"]  # exp(0.2) > 1, clamped
    assert 1 / (1 + 2) in thr["consistency_inverse_std"]
    assert min(max(0.4 * 1.0 + 0.3 * (2 / 3) + 0.3 * 0.0, 0.0), 1.0) in thr["hybrid_consistency"]


@pytest.mark.parametrize(
    "csf", ["secondary:verbalized+token_msp:product", "secondary:hybrid_verbalized+consistency:average"]
)
def test_secondary_values(evaluate, csf: str) -> None:
    doc = values_doc()
    r, art = evaluate(doc, csf)
    assert (r.exit_code, r.stderr) == (0, "")
    assert list(art["confidence_variants"]) == [csf]
    assert art["confidence_variants"][csf]["curve"]["threshold"] == expected_thresholds(doc, csf)


def test_an_integral_float_is_accepted_for_an_integer_signal(evaluate) -> None:
    signals = [{LLM: float(i % 3)} for i in range(8)]
    doc = run_doc("pol", [("m", [participant(1, [1] * 8, [0] * 8, signals)])])
    r, art = evaluate(doc, "llm")
    assert (r.exit_code, r.stderr) == (0, "")
    assert art["confidence_variants"]["llm"]["curve"]["threshold"] == [2.0, 1.0, 0.0]


def test_negative_zero_and_zero_are_one_plateau(evaluate) -> None:
    """-0.0 == 0.0, so they are one confidence value: one working point."""
    signals = [{"token_msp": v} for v in (-0.0, 0.0, -0.0, 0.0, 0.5, 0.5, -0.0, 0.0)]
    doc = run_doc("pol", [("m", [participant(1, [1] * 8, [0, 1, 2, 3, 0, 1, 2, 3], signals)])])
    r, art = evaluate(doc, "token_msp")
    assert (r.exit_code, r.stderr) == (0, "")
    curve = art["confidence_variants"]["token_msp"]["curve"]
    assert curve["coverage"] == [0.25, 1.0]
    assert curve["threshold"] == [0.5, 0.0]
    assert curve["selective_risk"] == [0.5, 1.0]


@pytest.mark.parametrize(
    ("csf", "signal", "shown"),
    [
        ("token_pe", "token_pe", "inf"),
        ("consistency_inverse_std", STD, "inf"),
        ("secondary:token_pe+consistency:product", "token_pe", "inf"),
    ],
)
def test_a_non_finite_confidence_is_a_named_data_error(evaluate, csf: str, signal: str, shown: str) -> None:
    doc = run_with({(PID, ITEM): {signal: -1.0}})
    r, art = evaluate(doc, csf)
    assert (r.exit_code, r.stdout, r.crashed, art) == (1, "", False, None)
    problem = where(f"the confidence is {shown}, not a finite number")
    assert r.stderr == f"error: confidence {csf} cannot be computed: {problem}\n"
    r, art = evaluate(doc, "all")
    assert r.exit_code == 0 and art is not None
    assert csf.startswith("secondary") or csf in art["skipped_variants"]
