"""scripts/make_example.py: deterministic, well-formed, and the shipped example is its output."""

from __future__ import annotations

import json
from pathlib import Path

from riskcov.formats.phq8_json import ITEMS, SIGNALS, parse

ROOT = Path(__file__).resolve().parents[2]


def test_same_seed_same_run_other_seed_other_run(mk):
    assert mk.make_run(6, seed=3) == mk.make_run(6, seed=3)
    assert mk.make_run(6, seed=3) != mk.make_run(6, seed=4)


def test_shipped_example_is_the_generator_output(mk, tmp_path):
    out = tmp_path / "example.json"
    assert mk.main([str(out), "--participants", "41", "--seed", "0"]) == 0
    shipped = ROOT / "examples" / "example_run.json"
    assert out.read_bytes() == shipped.read_bytes()
    assert shipped.stat().st_size < 400_000


def test_example_structure(mk):
    run = mk.make_run(41, seed=0)
    exps = run["experiments"]
    assert [e["provenance"]["mode"] for e in exps] == ["zero_shot", "few_shot"]
    for exp in exps:
        rows = exp["results"]["results"]
        assert [r["participant_id"] for r in rows] == list(range(300, 341))
        failed = [r for r in rows if not r["success"]]
        assert len(failed) == 2  # round(0.05 * 41)
        assert all(set(r) == {"participant_id", "success", "error"} for r in failed)
        assert all(isinstance(r["error"], str) for r in failed)
        for r in rows:
            if r["success"]:
                assert list(r["predicted_items"]) == ITEMS
                assert list(r["ground_truth_items"]) == ITEMS
                for sig in r["item_signals"].values():
                    assert set(SIGNALS) <= set(sig)
                    assert sig["llm_evidence_count"] in range(5)
                    assert sig["verbalized_confidence"] in (None, 1, 2, 3, 4, 5)
                    assert len(sig["consistency_samples"]) == 5
    # the same ground truth in both experiments for the participants both scored
    ok = [
        {r["participant_id"]: r["ground_truth_items"] for r in e["results"]["results"] if r["success"]}
        for e in exps
    ]
    assert all(ok[0][p] == ok[1][p] for p in ok[0].keys() & ok[1].keys())


def test_example_abstains_about_30_percent_and_uses_nulls(mk):
    run = mk.make_run(41, seed=0)
    preds = [
        v
        for e in run["experiments"]
        for r in e["results"]["results"]
        if r["success"]
        for v in r["predicted_items"].values()
    ]
    sigs = [
        s
        for e in run["experiments"]
        for r in e["results"]["results"]
        if r["success"]
        for s in r["item_signals"].values()
    ]
    assert (len(preds), sum(v is None for v in preds)) == (624, 190)
    assert sum(s["verbalized_confidence"] is None for s in sigs) == 67
    assert sum(s["retrieval_similarity_mean"] is None for s in sigs) == 312 + 31
    assert {s["evidence_source"] for s in sigs} == {None, "llm", "keyword", "both"}


def test_example_passes_the_parser(mk):
    run = mk.make_run(12, seed=5, modes=("few_shot",), failure_rate=0.25)
    parsed = parse(None, Path("gen.json"), json.dumps(run).encode())
    assert parsed.summary == "1 experiment(s), 12 participants, 72 items"
