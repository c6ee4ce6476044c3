"""The run JSON parser on its own (no warehouse): property tests of score and signal checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from riskcov.errors import InputError
from riskcov.formats.phq8_json import ITEMS, SIGNALS, parse
from riskcov.formats.phq8_json.validate import RANGES

PATH = Path("x.json")


def run_doc(pred: Any = 1, gt: Any = 1, signal: tuple[str, Any] | None = None) -> dict[str, Any]:
    sig: dict[str, Any] = {name: {"llm_evidence_count": 1} for name in ITEMS}
    if signal:
        sig["Sleep"][signal[0]] = signal[1]
    participant = {
        "participant_id": 1,
        "success": True,
        "predicted_items": {name: (pred if name == "Sleep" else 0) for name in ITEMS},
        "ground_truth_items": {name: (gt if name == "Sleep" else 0) for name in ITEMS},
        "item_signals": sig,
    }
    return {
        "run_metadata": {"run_id": "r"},
        "experiments": [{"provenance": {"mode": "few_shot"}, "results": {"results": [participant]}}],
    }


def parse_doc(doc: dict[str, Any]):
    return parse(None, PATH, json.dumps(doc).encode())


def show(v: Any) -> str:
    return json.dumps(v) if isinstance(v, str) else repr(v)


values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-10, 10),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.sampled_from([0.0, 1.0, 2.0, 3.0, -0.0, 1.5]),
    st.text(max_size=3),
)


@given(values)
def test_pred_is_accepted_exactly_when_it_is_a_score_or_null(v):
    valid = v is None or (not isinstance(v, (bool, str)) and float(v).is_integer() and 0 <= v <= 3)
    prefix = "x.json: experiment few_shot: participant 1: predicted_items.Sleep = "
    if valid:
        run = parse_doc(run_doc(pred=v))
        items = run.rows[0].items
        assert bool(items["pred_null"][2]) is (v is None)
        assert int(items["pred"][2]) == (0 if v is None else int(v))
        return
    with pytest.raises(InputError) as info:
        parse_doc(run_doc(pred=v))
    if isinstance(v, bool):
        assert str(info.value) == prefix + f"{str(v).lower()} is a boolean, not a number"
    else:
        assert str(info.value) == prefix + f"{show(v)} is not 0..3 or null"


@given(values)
def test_gt_is_accepted_exactly_when_it_is_a_score(v):
    valid = v is not None and not isinstance(v, (bool, str)) and float(v).is_integer() and 0 <= v <= 3
    prefix = "x.json: experiment few_shot: participant 1: ground_truth_items.Sleep "
    if valid:
        assert int(parse_doc(run_doc(gt=v)).rows[0].items["gt"][2]) == int(v)
        return
    with pytest.raises(InputError) as info:
        parse_doc(run_doc(gt=v))
    if v is None:
        assert str(info.value) == prefix + "is null; a ground truth score is required"
    elif isinstance(v, bool):
        assert str(info.value) == prefix + f"= {str(v).lower()} is a boolean, not a number"
    else:
        assert str(info.value) == prefix + f"= {show(v)} is not 0..3"


@given(
    st.sampled_from(sorted(k for k, kind in SIGNALS.items() if kind == "float")),
    st.one_of(st.none(), st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=False)),
)
def test_float_signals_keep_their_value(key, v):
    lo, hi = RANGES.get(key, (-float("inf"), float("inf")))
    if v is not None and not lo <= v <= hi:  # a bounded scale (docs/formats.md): refused
        with pytest.raises(InputError) as info:
            parse_doc(run_doc(signal=(key, v)))
        assert str(info.value).endswith(f"item_signals.Sleep.{key} = {v!r} is not in 1..5 or null")
        return
    signals = parse_doc(run_doc(signal=(key, v))).rows[0].signals
    assert bool(signals[key + "__null"][2]) is (v is None)
    if v is not None:
        assert float(signals[key][2]) == float(v)
        assert list(signals["signal_keys"][2]) == ["llm_evidence_count", key]


def test_every_known_signal_has_a_column_in_the_schema():
    sql = (Path(__file__).resolve().parents[2] / "migrations" / "0001_core.sql").read_text()
    table = sql.split("CREATE TABLE item_signals", 1)[1]
    for key in SIGNALS:
        assert f"\n    {key} " in table, key
