"""Deterministic synthetic run files in the PHQ-8 run JSON format of docs/formats.md.

    python scripts/make_example.py OUT.json --participants N --seed S

Every experiment shares the same participant ids (300, 301, ... ascending) and the same
ground truth; each experiment fails a fixed share of participants (`success: false`, an
error string, no items). Successful participants carry all 8 items with every known per-item
signal of docs/formats.md (plus the two unknown keys `consistency_modal_score` and
`consistency_modal_count` that real runs write), with confidence signals correlated with
correctness and about 30 % of items abstained. The same arguments always give the same
bytes: all randomness comes from one `numpy.random.RandomState(seed)`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ITEMS = ["NoInterest", "Depressed", "Sleep", "Tired", "Appetite", "Failure", "Concentrating", "Moving"]
FIRST_ID = 300
N_SAMPLES = 5
# P(abstain) by llm_evidence_count 0..4 (with counts ~ BetaBinomial(4, 2, 2): ~30 % overall)
_ABSTAIN_BY_EVIDENCE = np.array([0.85, 0.45, 0.2, 0.1, 0.05])
_ERRORS = [
    "LLM request timed out after 300s",
    "Transcript not found for participant",
    "Model returned unparseable JSON",
]
_INFERENCE_TYPES = ["direct", "inferred", "temporal"]
_MODE_SKILL = {"zero_shot": 0.0, "few_shot": 0.08}


def _r(x: float, nd: int = 4) -> float:
    return round(float(x), nd)


def _experiment(
    rng: np.random.RandomState, mode: str, pids: np.ndarray, gt: np.ndarray, failure_rate: float
) -> dict[str, Any]:
    n = len(pids)
    shape = (n, len(ITEMS))
    n_fail = round(failure_rate * n)
    failed = np.zeros(n, dtype=bool)
    if n_fail:
        failed[rng.choice(n, size=n_fail, replace=False)] = True
    error_idx = rng.randint(0, len(_ERRORS), size=n)

    # item quality q drives evidence, correctness and every confidence signal
    q = rng.beta(2.0, 2.0, size=shape)
    llm = rng.binomial(4, q)
    keyword = rng.binomial(3, 0.6 * q)
    abstain = rng.rand(*shape) < _ABSTAIN_BY_EVIDENCE[llm]
    p_correct = np.clip(0.35 + 0.55 * q + _MODE_SKILL.get(mode, 0.0), 0.0, 0.98)
    correct = rng.rand(*shape) < p_correct
    offset = rng.choice([-2, -1, 1, 2], p=[0.15, 0.35, 0.35, 0.15], size=shape)
    wrong = np.clip(gt + offset, 0, 3)
    wrong = np.where(wrong == gt, np.where(gt == 0, 1, gt - 1), wrong)
    pred = np.where(correct, gt, wrong)

    # zero-shot runs retrieve nothing: reference count 0, similarities null
    refs = rng.binomial(3, 0.3 + 0.5 * q) if mode == "few_shot" else np.zeros(shape, dtype=int)
    sim_mean = np.clip(0.25 + 0.5 * q + rng.normal(0, 0.08, size=shape), 0.0, 1.0)
    sim_max = np.clip(sim_mean + rng.exponential(0.05, size=shape), 0.0, 1.0)
    verbal = np.clip(np.rint(1 + 4 * q + rng.normal(0, 0.7, size=shape)), 1, 5).astype(int)
    verbal_null = rng.rand(*shape) < 0.1
    msp = np.clip(0.3 + 0.65 * q + rng.normal(0, 0.06, size=shape), 0.05, 0.999)
    pe = np.clip(1.4 - 1.1 * q + rng.normal(0, 0.1, size=shape), 0.01, None)
    energy = -np.clip(0.08 - 0.06 * q + rng.normal(0, 0.008, size=shape), 0.001, None)
    # consistency samples agree with the prediction with a probability driven by q
    agree = rng.rand(*shape, N_SAMPLES) < (0.4 + 0.55 * q)[..., None]
    other = rng.randint(0, 4, size=(*shape, N_SAMPLES))
    sample_null = rng.rand(*shape, N_SAMPLES) < np.where(abstain, 0.7, 0.1)[..., None]
    inference_used = rng.rand(*shape) < 0.25
    inference_type = rng.randint(0, len(_INFERENCE_TYPES), size=shape)

    lists = {
        k: v.tolist()
        for k, v in {
            "llm": llm,
            "keyword": keyword,
            "abstain": abstain,
            "pred": pred,
            "gt": gt,
            "refs": refs,
            "sim_mean": sim_mean,
            "sim_max": sim_max,
            "verbal": verbal,
            "verbal_null": verbal_null,
            "msp": msp,
            "pe": pe,
            "energy": energy,
            "agree": agree,
            "other": other,
            "sample_null": sample_null,
            "inf_used": inference_used,
            "inf_type": inference_type,
        }.items()
    }
    rows: list[dict[str, Any]] = []
    for p, pid in enumerate(pids.tolist()):
        if failed[p]:
            rows.append({"participant_id": pid, "success": False, "error": _ERRORS[error_idx[p]]})
            continue
        preds: dict[str, int | None] = {}
        gts: dict[str, int] = {}
        signals: dict[str, dict[str, Any]] = {}
        for j, name in enumerate(ITEMS):
            g = lists["gt"][p][j]
            pr = None if lists["abstain"][p][j] else lists["pred"][p][j]
            preds[name], gts[name] = pr, g
            centre = pr if pr is not None else g
            samples = [
                None
                if lists["sample_null"][p][j][k]
                else (centre if lists["agree"][p][j][k] else lists["other"][p][j][k])
                for k in range(N_SAMPLES)
            ]
            signals[name] = _signals(lists, p, j, samples)
        n_pred = sum(v is not None for v in preds.values())
        errs = [abs(preds[k] - gts[k]) for k in ITEMS if preds[k] is not None]
        rows.append(
            {
                "participant_id": pid,
                "success": True,
                "error": None,
                "ground_truth_total": sum(gts.values()),
                "predicted_total": sum(v for v in preds.values() if v is not None),
                "available_items": n_pred,
                "na_items": len(ITEMS) - n_pred,
                "mae_available": _r(sum(errs) / len(errs), 6) if errs else None,
                "predicted_items": preds,
                "ground_truth_items": gts,
                "item_signals": signals,
            }
        )
    n_failed = int(failed.sum())
    return {
        "provenance": {
            "mode": mode,
            "split": "synthetic",
            "quantitative_model": "synthetic-model",
            "embedding_model": "synthetic-embed" if mode == "few_shot" else None,
            "participants_requested": n,
            "participants_evaluated": n - n_failed,
            "consistency_enabled": True,
            "consistency_n_samples": N_SAMPLES,
            "consistency_temperature": 0.3,
        },
        "results": {
            "mode": mode,
            "model": "synthetic-model",
            "total_subjects": n,
            "successful_subjects": n - n_failed,
            "failed_subjects": n_failed,
            "results": rows,
        },
    }


def _signals(lists: dict[str, Any], p: int, j: int, samples: list[int | None]) -> dict[str, Any]:
    llm, kw, refs = lists["llm"][p][j], lists["keyword"][p][j], lists["refs"][p][j]
    source = "both" if llm and kw else "llm" if llm else "keyword" if kw else None
    present = [s for s in samples if s is not None]
    counts: dict[int | None, int] = {}
    for s in samples:
        counts[s] = counts.get(s, 0) + 1
    modal = max(counts, key=lambda s: (counts[s], s is not None, -1 if s is None else -s))
    std = float(np.std(present)) if present else None
    used = lists["inf_used"][p][j]
    return {
        "llm_evidence_count": llm,
        "keyword_evidence_count": kw,
        "evidence_source": source,
        "retrieval_reference_count": refs,
        "retrieval_similarity_mean": _r(lists["sim_mean"][p][j]) if refs else None,
        "retrieval_similarity_max": _r(lists["sim_max"][p][j]) if refs else None,
        "verbalized_confidence": None if lists["verbal_null"][p][j] else lists["verbal"][p][j],
        "token_msp": _r(lists["msp"][p][j]),
        "token_pe": _r(lists["pe"][p][j]),
        "token_energy": _r(lists["energy"][p][j], 5),
        "consistency_modal_score": modal,
        "consistency_modal_count": counts[modal],
        "consistency_modal_confidence": _r(counts[modal] / N_SAMPLES),
        "consistency_score_std": None if std is None else _r(std, 6),
        "consistency_na_rate": _r((N_SAMPLES - len(present)) / N_SAMPLES),
        "consistency_samples": samples,
        "inference_used": used,
        "inference_type": _INFERENCE_TYPES[lists["inf_type"][p][j]] if used else None,
        "inference_marker": "inferred from context" if used else None,
    }


def make_run(
    n_participants: int,
    seed: int = 0,
    modes: tuple[str, ...] = ("zero_shot", "few_shot"),
    failure_rate: float = 0.05,
) -> dict[str, Any]:
    """A run dict with one experiment per mode, all over participants 300, 301, ...

    >>> run = make_run(3, seed=1, modes=("few_shot",), failure_rate=0.34)
    >>> [r["participant_id"] for r in run["experiments"][0]["results"]["results"]]
    [300, 301, 302]
    >>> sum(not r["success"] for r in run["experiments"][0]["results"]["results"])
    1
    """
    if n_participants < 1:
        raise ValueError("n_participants must be at least 1")
    rng = np.random.RandomState(seed)
    pids = np.arange(FIRST_ID, FIRST_ID + n_participants, dtype=np.int64)
    severity = rng.beta(1.5, 3.0, size=n_participants)
    gt = rng.binomial(3, np.repeat(severity[:, None], len(ITEMS), axis=1))
    return {
        "run_metadata": {
            "run_id": f"synthetic-p{n_participants}-s{seed}-{'-'.join(modes)}",
            "timestamp": "2025-01-15T12:00:00",
            "git_commit": "0000000",
            "git_dirty": False,
            "python_version": "3.11.7",
            "platform": "linux-x86_64",
            "generator": "scripts/make_example.py",
            "seed": seed,
        },
        "experiments": [_experiment(rng, mode, pids, gt, failure_rate) for mode in modes],
    }


def write_run(run: dict[str, Any], out: Path) -> None:
    """json.dump with compact separators (the files get large)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as fh:
        json.dump(run, fh, separators=(",", ":"))
        fh.write("\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--participants", type=int, default=41)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modes", default="zero_shot,few_shot", help="comma-separated experiment modes")
    parser.add_argument("--failure-rate", type=float, default=0.05)
    args = parser.parse_args(argv)
    run = make_run(args.participants, args.seed, tuple(args.modes.split(",")), args.failure_rate)
    write_run(run, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
