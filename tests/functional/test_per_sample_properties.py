"""Property (issue 8 item 7): a PHQ-8 run and the same items written as a per-sample table (a
sample per item, its participant as cluster, its PHQ-8 loss as `loss`) give the same metrics
wherever both formats define them, bootstrap included (docs/metrics.md's draws over sorted cluster ids).

With `abs` the losses are the same integers and both formats run the same SQL on the same
numbers, so every value must be equal to the last bit; with `abs_norm` the per-sample losses
are the doubles |pred - gt| / 3 summed as given, while PHQ-8 divides integer sums by 3 at the
end, so values agree to rel 1e-12 (and Coverage@Risk and the gap percentages, discontinuous
in the last bit, are compared only under `abs`).
"""

from __future__ import annotations

import csv
import json
import math
import shutil
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hypothesis_profiles import examples
from riskcov.cli import app
from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.evaluation.run import Options, run

ITEMS = ["NoInterest", "Depressed", "Sleep", "Tired", "Appetite", "Failure", "Concentrating", "Moving"]
EXAMPLES = examples(30)
MSP = st.sampled_from([0.1, 0.5, 0.5, 0.9, 1.0]) | st.floats(0.0, 1.0).map(lambda x: x + 0.0)


@st.composite
def phq8_people(draw: st.DrawFn) -> list[dict[str, Any]]:
    """1-6 participants (ids of any sign, some failed), abstentions, tied evidence counts."""
    ids = draw(st.lists(st.integers(-40, 400), min_size=1, max_size=6, unique=True))
    people: list[dict[str, Any]] = []
    for no, pid in enumerate(ids):
        if no and draw(st.integers(0, 4)) == 0:
            people.append({"participant_id": pid, "success": False, "error": "timeout"})
            continue
        preds = [draw(st.none() | st.integers(0, 3)) for _ in ITEMS]
        gts = [draw(st.integers(0, 3)) for _ in ITEMS]
        signals = {
            name: {"llm_evidence_count": draw(st.sampled_from([0, 0, 1, 2, 3, 5])), "token_msp": draw(MSP)}
            for name in ITEMS
        }
        people.append(
            {
                "participant_id": pid,
                "success": True,
                "predicted_items": dict(zip(ITEMS, preds, strict=True)),
                "ground_truth_items": dict(zip(ITEMS, gts, strict=True)),
                "item_signals": signals,
            }
        )
    return people


@cache
def _template() -> Path:
    """An empty, migrated warehouse made once; every example starts from a copy."""
    path = Path(tempfile.mkdtemp(prefix="riskcov-template-")) / "template.duckdb"
    with open_warehouse(path):
        pass
    return path


def _ingest(path: Path, wh: Path) -> None:
    r = CliRunner().invoke(
        app, ["ingest", str(path), "--warehouse", str(wh)], env={"RISKCOV_WAREHOUSE": None}
    )
    assert r.exit_code == 0, r.stderr


def _as_samples(con: Any, people: list[dict[str, Any]], csf: str, loss: str, path: Path) -> None:
    """The PHQ-8 items as a per-sample CSV: confidences from the warehouse's own CSF view."""
    conf = {
        (pid, item): c
        for pid, item, c in con.execute(
            "SELECT participant_id, item_index, confidence FROM v_csf_confidences WHERE csf = ?", [csf]
        ).fetchall()
    }
    with path.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["sample_id", "cluster", f"confidence_{csf}", "abstained", "loss"])
        for p in people:
            if not p["success"]:
                continue
            pid = p["participant_id"]
            for i, name in enumerate(ITEMS):
                pred, gt = p["predicted_items"][name], p["ground_truth_items"][name]
                err = 0 if pred is None else abs(pred - gt)
                c = conf[(pid, i)]
                out.writerow(
                    [
                        f"{pid}_{i}",
                        pid,
                        "" if c is None else repr(c),
                        "true" if pred is None else "false",
                        repr(float(err) if loss == "abs" else err / 3),
                    ]
                )


# not comparable to rel 1e-12 when the losses differ in the last bit (abs_norm): Coverage@Risk
# tests risk <= alpha (a risk of exactly 0.2 in one format is 0.19999999999999998 in the
# other), the gap percentages divide by differences that are 0 in one and 1e-17 in the other,
# and effective reliability's best threshold breaks exact ties (k - (1 + c) L in raw units, exact
# for PHQ-8's integer errors, not for a per-sample file's thirds)
DISCONTINUOUS = ("coverage_at_risk", "interpretation", "effective_reliability")


def _same(a: Any, b: Any, exact: bool, path: str) -> int:
    """Compare what both artifacts define; returns how many numbers were compared."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = a.keys() & b.keys() if exact else a.keys() & b.keys() - set(DISCONTINUOUS)
        return sum(_same(a[k], b[k], exact, f"{path}.{k}") for k in keys)
    if isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), path
        return sum(_same(x, y, exact, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b, strict=True)))
    if isinstance(a, float) and isinstance(b, float) and not exact:
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15), (path, a, b)
    else:
        assert a == b, (path, a, b)
    return 1


@pytest.mark.slow  # whole evaluations per example (docs/testing.md)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    people=phq8_people(),
    csf=st.sampled_from(["llm", "token_msp"]),
    loss=st.sampled_from(["abs", "abs_norm"]),
    resamples=st.sampled_from([0, 9, 25]),
    seed=st.integers(0, 2**31 - 1),
    area_c=st.sampled_from([0.5, 0.3, 1.0]),
)
def test_phq8_and_per_sample_give_the_same_metrics(
    people: list[dict[str, Any]], csf: str, loss: str, resamples: int, seed: int, area_c: float
) -> None:
    if not any(p["success"] for p in people):
        people[0] = {**people[0], "success": True}
    with tempfile.TemporaryDirectory() as tmp:
        wh, run_json, samples = Path(tmp) / "w.duckdb", Path(tmp) / "phq8.json", Path(tmp) / "items.csv"
        shutil.copyfile(_template(), wh)
        doc = {
            "run_metadata": {"run_id": "phq8", "timestamp": "2025-01-01T00:00:00", "git_commit": "c0ffee"},
            "experiments": [{"provenance": {"mode": "few_shot"}, "results": {"results": people}}],
        }
        run_json.write_text(json.dumps(doc))
        _ingest(run_json, wh)
        common = {"confidence": csf, "bootstrap_resamples": resamples, "seed": seed, "area_coverage": area_c}
        with open_warehouse(wh) as con:
            phq8 = run(con, Options(inputs=["phq8"], modes=["few_shot"], loss=loss, **common)).artifact
            _as_samples(con, people, csf, loss, samples)
        _ingest(samples, wh)
        with open_warehouse(wh) as con:
            per_sample = run(con, Options(inputs=["items"], **common)).artifact
    a, b = phq8["confidence_variants"][csf], per_sample["confidence_variants"][csf]
    shared = a.keys() & b.keys()
    assert {"aurc_full", "augrc_full", "cmax", "aurc_optimal", "eaurc", "aurc_achievable"} <= shared
    assert {"mae_at_coverage", "curve", "bootstrap"} <= shared
    assert _same(a, b, loss == "abs", csf) >= 20
    for key in ("participants_included", "items_total", "items_predicted", "cmax"):
        assert per_sample["population"][key] == pytest.approx(phq8["population"][key], rel=1e-15), key
