"""The typed decoder of the PHQ-8 reader (formats/phq8_json/typed.py) gives the row-by-row
validator's columns exactly, leaves the rest of the file to the full checker as a skeleton, and
refuses (None) whatever it cannot vouch for, repeated keys above all (msgspec keeps the last)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_phq8_fast_path import ITEMS, ROWS, _plain

from riskcov.formats.phq8_json.parse import _row_by_row
from riskcov.formats.phq8_json.typed import Refused, typed_plan, typed_rows

# ROWS with every failed participant's error a string (an object there is the full checker's)
TEXT_ROWS = copy.deepcopy(ROWS)
TEXT_ROWS[1]["error"] = "timeout: no answer after 30 s"
TEXT_ROWS[0]["item_signals"]["Sleep"]["inference_marker"] = "said: 'tired'"  # ':' in a value
TEXT_ROWS[3]["item_signals"]["Tired"]["llm_evidence_count"] = 2**60 + 1  # not exact as a double


def _run(*experiments: list[dict[str, Any]], indent: int | None = None) -> bytes:
    doc = {
        "run_metadata": {"run_id": "r", "timestamp": "2025-01-15T12:00:00"},
        "experiments": [
            {"provenance": {"mode": f"m{n}"}, "results": {"mode": f"m{n}", "results": rows}}
            for n, rows in enumerate(experiments)
        ],
    }
    return json.dumps(doc, indent=indent).encode()


@pytest.mark.parametrize("indent", [None, 2])
def test_the_typed_path_gives_the_validators_columns(indent):
    typed = typed_rows(_run(TEXT_ROWS, ROWS[:1], indent=indent))
    assert typed is not None
    assert [_plain(r) for r in typed.rows] == [
        _plain(_row_by_row(TEXT_ROWS, None)),
        _plain(_row_by_row(ROWS[:1], None)),
    ]
    skeleton = json.loads(typed.skeleton)
    assert [e["results"]["results"] for e in skeleton["experiments"]] == [[], []]
    assert skeleton["experiments"][1]["provenance"] == {"mode": "m1"}
    assert skeleton["run_metadata"]["timestamp"] == "2025-01-15T12:00:00"


def test_the_typed_path_reads_the_shared_fixture(shared_dir):
    data = (shared_dir / "fixtures" / "runs" / "public30.json").read_bytes()
    typed = typed_rows(data)
    assert typed is not None
    for exp, rows in zip(json.loads(data)["experiments"], typed.rows, strict=True):
        assert _plain(rows) == _plain(_row_by_row(exp["results"]["results"], None))


def _twice(text: bytes, key: str, occurrence: int = 0) -> bytes:
    """`text` with the `occurrence`-th `"key": value` given once more, value 1, before it."""
    needle = f'"{key}":'.encode()
    at = -1
    for _ in range(occurrence + 1):
        at = text.index(needle, at + 1)
    return text[:at] + needle + b" 1, " + text[at:]


@pytest.mark.parametrize(
    ("key", "occurrence"),
    [
        ("participant_id", 2),  # a participant's key
        ("ground_truth_total", 0),  # a key riskcov does not store
        ("Sleep", 1),  # an item of a map
        ("llm_evidence_count", 9),  # a signal
        ("consistency_note_rate", 3),  # an unknown signal (extra_signals)
    ],
)
def test_a_repeated_key_is_refused(key, occurrence):
    rows = copy.deepcopy(TEXT_ROWS)
    for r in rows:
        r.setdefault("ground_truth_total", 3)
    data = _run(rows)
    assert typed_rows(data) is not None
    assert typed_rows(_twice(data, key, occurrence)) is None


@pytest.mark.parametrize(
    "change",
    [
        lambda rows: rows[0].update(error="a \\ backslash"),  # escapes: the ':' count is off
        lambda rows: rows[0].update(participant_id="7"),
        lambda rows: rows[0]["item_signals"]["Moving"].update(token_msp=0.5),  # a new signal
        lambda rows: rows[0]["item_signals"]["Moving"].update(verbalized_confidence=6),
        lambda rows: rows[0]["item_signals"]["Moving"].update(llm_evidence_count=2**70),
        lambda rows: rows[0]["predicted_items"].update(Sleep=2.0),
        lambda rows: rows[1].update(error={"why": "timeout"}),
        lambda rows: rows[3].update(participant_id=7),
        lambda rows: rows.append({"participant_id": 99, "success": True, "extra": {"a": 1}}),
        lambda rows: rows.clear(),
        lambda rows: rows[0].update(note=[[[1]]]),  # a nested value in an unknown field
    ],
)
def test_the_typed_path_refuses_what_it_does_not_check(change):
    rows = copy.deepcopy(TEXT_ROWS)
    change(rows)
    assert typed_rows(_run(rows)) is None


@given(st.lists(st.sampled_from(["a:b", "::", "", "x", ": :"]), min_size=len(TEXT_ROWS)))
def test_colons_inside_strings_are_counted(texts):
    """Colons in strings are not key separators: the repeated-key count must not refuse them."""
    rows = copy.deepcopy(TEXT_ROWS)
    for r, t in zip(rows, texts, strict=False):
        r["error"] = t
        if r.get("item_signals"):
            r["item_signals"][ITEMS[-1]]["inference_marker"] = t
    typed = typed_rows(_run(rows))
    assert typed is not None
    assert list(typed.rows[0].participants["error"]) == texts[: len(rows)]


def test_nesting_too_deep_for_python_is_left_to_the_full_checker():
    deep = b"[" * 100_000 + b"]" * 100_000
    rows = _run(TEXT_ROWS).replace(b'"participant_id": 7,', b'"participant_id": 7, "x": ' + deep + b",", 1)
    assert typed_rows(rows) is None


def _joined(batches: list[Any]) -> list[tuple[str, str, str, list[Any]]]:
    """The batches' columns end to end, as _plain gives them."""
    plain = [_plain(b) for b in batches]
    return [(t, n, d, [v for p in plain for v in p[c][3]]) for c, (t, n, d, _) in enumerate(plain[0])]


@given(st.integers(min_value=1, max_value=4000), st.sampled_from([None, 2]))
def test_batches_of_any_size_give_the_columns_of_the_whole_list(size, indent):
    """Cut at `}, {"participant_id":` (any whitespace) after about `size` bytes of text."""
    rows = [*copy.deepcopy(TEXT_ROWS), *copy.deepcopy(TEXT_ROWS[:2])]
    rows[-1]["participant_id"], rows[-2]["participant_id"] = 501, 502
    plan = typed_plan(_run(rows, indent=indent))
    assert plan is not None
    batches = list(plan[1][0].batches(size))
    assert len(batches) > 1 or size > 500
    assert _joined(batches) == _plain(_row_by_row(rows, None))
    assert plan[1][0].counts == [len(rows), 8 * sum(r["success"] for r in rows)]


@pytest.mark.parametrize("position", [0, 3])
def test_a_participant_id_of_an_earlier_batch_is_refused(position):
    rows = [*copy.deepcopy(TEXT_ROWS), copy.deepcopy(TEXT_ROWS[0])]
    rows[-1]["participant_id"] = rows[position]["participant_id"]
    plan = typed_plan(_run(rows))
    assert plan is not None
    with pytest.raises(Refused):
        list(plan[1][0].batches(1))
