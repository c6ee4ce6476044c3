"""Property tests: random small runs through `riskcov.evaluation.run.run`, every artifact number
compared with the pure-Python oracle of metrics_support.py (docs/metrics.md, docs/formats.md), rel 1e-12.

Runs have 1-8 participants (some failed, ids in any order and sign), many abstentions, small
integer evidence counts (ties, so plateaus), token_msp floats (some outside [0, 1], clamped),
K = 0 populations, and are evaluated with B = 0 and with B = 7 (seeded, in replicate chunks
of 1, 3 or all), under the three estimators, single and paired.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from metrics_support import (
    DEFAULT_ALPHAS,
    DEFAULT_GRID,
    ITEMS,
    MISSING,
    Config,
    Side,
    assert_same,
    expected_artifact,
    failed,
    participant,
    run_doc,
    write_json,
)

from hypothesis_profiles import examples
from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.evaluation.run import Options, run

# HYPOTHESIS_PROFILE=thorough for a longer hunt (docs/testing.md)
EXAMPLES = examples(40)
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
CONFIDENCES = [
    "llm",
    "token_msp",
    "default",
    "secondary:llm+token_msp:average",
    "secondary:token_msp+llm:product",
]
MSP = [0.0, 0.1, 0.25, 0.5, 0.5, 0.9, 1.0, 1.25, -0.2]
GRIDS = [DEFAULT_GRID, [0.05, 0.25, 0.5, 1.0], [0.125, 0.3, 0.375, 0.6], [1.0]]
ALPHAS = [DEFAULT_ALPHAS, [0.0, 0.1, 1 / 3, 0.5, 1.0]]
AREAS = st.sampled_from([0.5, 0.05, 0.3, 0.375, 0.7, 1.0]) | st.floats(0.01, 1.0)


@st.composite
def a_participant(draw: st.DrawFn, pid: int, with_signals: bool) -> dict[str, Any]:
    """A successful participant: mixed, all-abstaining or all-predicting items."""
    style = draw(st.sampled_from(["mixed", "mixed", "mixed", "abstain", "predict"]))
    preds: list[int | None] = []
    gts, signals = [], []
    for _ in ITEMS:
        if style == "abstain":
            pred = None
        elif style == "predict":
            pred = draw(st.integers(0, 3))
        else:
            pred = draw(st.none() | st.integers(0, 3))
        preds.append(pred)
        gts.append(draw(st.integers(0, 3)))
        msp = draw(st.sampled_from(MSP) | st.floats(0.0, 1.0).map(lambda x: x + 0.0))
        if pred is None:
            msp = draw(st.sampled_from([msp, None]))  # a null signal on an abstention is fine
        signals.append(
            {"llm_evidence_count": draw(st.sampled_from([0, 0, 1, 1, 2, 3, 5, MISSING])), "token_msp": msp}
        )
    return participant(pid, preds, gts, signals if with_signals else None)


@st.composite
def people(
    draw: st.DrawFn, ids: list[int], needs_signals: bool, must_succeed: frozenset[int] = frozenset()
) -> list[dict[str, Any]]:
    out = []
    for pid in ids:
        ok = pid in must_succeed or draw(st.sampled_from([True, True, True, False]))
        with_signals = needs_signals or draw(st.sampled_from([True, True, False]))
        out.append(draw(a_participant(pid, with_signals)) if ok else failed(pid))
    if not any(p["success"] for p in out):
        out[0] = draw(a_participant(out[0]["participant_id"], True))
    return draw(st.permutations(out))


@st.composite
def configs(draw: st.DrawFn) -> tuple[str, Config]:
    confidence = draw(st.sampled_from(CONFIDENCES))
    cfg = Config(
        loss=draw(st.sampled_from(["abs", "abs_norm"])),
        area_c=draw(AREAS),
        grid=draw(st.sampled_from(GRIDS)),
        alphas=draw(st.sampled_from(ALPHAS)),
    )
    return confidence, cfg


def options(paths: list[str], modes: list[str], confidence: str, cfg: Config, **kw: Any) -> Options:
    return Options(
        inputs=paths,
        modes=modes,
        loss=cfg.loss,
        confidence=confidence,
        coverage_grid=list(cfg.grid),
        area_coverage=cfg.area_c,
        alpha_grid=list(cfg.alphas),
        **kw,
    )


def fresh(template: Path, tmp: str) -> Path:
    """One warehouse per example: a copy of the prepared empty template."""
    return Path(shutil.copyfile(template, Path(tmp) / "w.duckdb"))


def check_single(
    template: Path, doc: dict[str, Any], confidence: str, cfg: Config, seed: int, chunk: int
) -> None:
    """B = 0, B = 7 and both item estimators on one warehouse, each against the oracle."""
    with tempfile.TemporaryDirectory() as tmp:
        path = str(write_json(Path(tmp) / "run.json", doc))
        exp = doc["experiments"][0]
        side = Side(
            path,
            doc["run_metadata"]["run_id"],
            "c0ffee",
            exp["provenance"].get("mode"),
            exp["results"]["results"],
        )
        with open_warehouse(fresh(template, tmp)) as con:
            for b in (0, 7):
                got = run(
                    con,
                    options(
                        [path], [], confidence, cfg, bootstrap_resamples=b, seed=seed, chunk_replicates=chunk
                    ),
                ).artifact
                assert_same(
                    expected_artifact([side], confidence=confidence, cfg=cfg, n_resamples=b, seed=seed), got
                )
            for estimator in ("item-step", "item-trapezoid"):
                item_cfg = dataclasses.replace(cfg, estimator=estimator)
                got = run(
                    con,
                    options(
                        [path],
                        [],
                        confidence,
                        item_cfg,
                        bootstrap_resamples=0,
                        seed=seed,
                        estimator=estimator,
                    ),
                ).artifact
                assert_same(
                    expected_artifact([side], confidence=confidence, cfg=item_cfg, n_resamples=0, seed=seed),
                    got,
                    ignore=[("created_at",)],
                )


@pytest.mark.slow  # whole evaluations per example (docs/testing.md)
@SETTINGS
@given(
    data=st.data(),
    ids=st.lists(st.integers(-50, 10**6), min_size=1, max_size=8, unique=True),
    setup=configs(),
    seed=st.integers(0, 2**32 - 1),
    chunk=st.sampled_from([0, 1, 3]),
)
def test_single_input_matches_the_oracle(
    warehouse_template: Path,
    data: st.DataObject,
    ids: list[int],
    setup: tuple[str, Config],
    seed: int,
    chunk: int,
) -> None:
    confidence, cfg = setup
    needs_signals = "token_msp" in confidence
    doc = run_doc(
        "prop", [(data.draw(st.sampled_from(["few_shot", None])), data.draw(people(ids, needs_signals)))]
    )
    check_single(warehouse_template, doc, confidence, cfg, seed, chunk)


@pytest.mark.parametrize("loss", ["abs", "abs_norm"])
def test_no_prediction_at_all(warehouse_template: Path, loss: str) -> None:
    """K = 0: every area 0, every MAE null (CI null, drop rate 1), an empty curve."""
    abstain = [None] * 8
    doc = run_doc(
        "k0",
        [("m", [participant(3, abstain, [1] * 8, None), participant(-1, abstain, [0] * 8, None), failed(9)])],
    )
    cfg = Config(loss=loss, area_c=0.5, grid=[0.1, 1.0], alphas=[0.0, 1.0])
    check_single(warehouse_template, doc, "default", cfg, seed=5, chunk=0)


def test_every_item_predicted_and_correct(warehouse_template: Path) -> None:
    """Zero loss everywhere: optimal areas 0, so every gap percentage is 0 by definition."""
    signals = [{"llm_evidence_count": i % 3, "token_msp": 0.5} for i in range(8)]
    doc = run_doc(
        "zero",
        [("m", [participant(1, [2] * 8, [2] * 8, signals), participant(2, [0] * 8, [0] * 8, signals)])],
    )
    check_single(warehouse_template, doc, "llm", Config(loss="abs"), seed=1, chunk=1)


@st.composite
def paired_runs(draw: st.DrawFn) -> tuple[dict[str, Any], bool]:
    """A run with experiments zero_shot and few_shot; with --intersection-only the two
    participant sets may differ; at least one participant succeeds on both sides."""
    ids = draw(st.lists(st.integers(0, 500), min_size=1, max_size=8, unique=True))
    intersection_only = draw(st.booleans())
    needs_signals = draw(st.booleans())
    sides = []
    for _ in range(2):
        chosen = [pid for pid in ids if pid == ids[0] or not intersection_only or draw(st.booleans())]
        sides.append(draw(people(chosen, needs_signals, frozenset({ids[0]}))))
    doc = run_doc("pair", [("zero_shot", sides[0]), ("few_shot", sides[1])])
    return doc, intersection_only


@pytest.mark.slow  # whole evaluations per example (docs/testing.md)
@settings(SETTINGS, max_examples=max(1, EXAMPLES * 3 // 4))
@given(pair=paired_runs(), setup=configs(), seed=st.integers(0, 2**32 - 1))
def test_paired_inputs_match_the_oracle(
    warehouse_template: Path, pair: tuple[dict[str, Any], bool], setup: tuple[str, Config], seed: int
) -> None:
    doc, intersection_only = pair
    confidence, cfg = setup
    if "token_msp" in confidence and not all(
        "item_signals" in p for e in doc["experiments"] for p in e["results"]["results"] if p["success"]
    ):
        confidence = "llm"
    with tempfile.TemporaryDirectory() as tmp:
        path = str(write_json(Path(tmp) / "run.json", doc))
        sides = [
            Side(path, "pair", "c0ffee", e["provenance"]["mode"], e["results"]["results"])
            for e in doc["experiments"]
        ]
        with open_warehouse(fresh(warehouse_template, tmp)) as con:
            for b in (0, 7):
                got = run(
                    con,
                    options(
                        [path, path],
                        ["zero_shot", "few_shot"],
                        confidence,
                        cfg,
                        bootstrap_resamples=b,
                        seed=seed,
                        intersection_only=intersection_only,
                    ),
                ).artifact
                assert_same(
                    expected_artifact(
                        sides,
                        confidence=confidence,
                        cfg=cfg,
                        n_resamples=b,
                        seed=seed,
                        intersection_only=intersection_only,
                    ),
                    got,
                )
