"""The column-wise path of the PHQ-8 reader (formats/phq8_json/fast.py) gives the row-by-row
validator's columns exactly, and refuses (None) whatever it does not check itself."""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
import pytest

from riskcov.formats.phq8_json.columns import ExperimentRows
from riskcov.formats.phq8_json.fast import fast_rows
from riskcov.formats.phq8_json.parse import _row_by_row

ITEMS = ["NoInterest", "Depressed", "Sleep", "Tired", "Appetite", "Failure", "Concentrating", "Moving"]


def _signals(i: int) -> dict[str, Any]:
    return {
        "llm_evidence_count": i % 4,
        "evidence_source": [None, "llm", "both"][i % 3],
        "retrieval_similarity_mean": None if i % 5 == 0 else 0.25 + i / 100,
        "verbalized_confidence": [None, 2, 4.5][i % 3],
        "token_pe": i,  # an integer in a float signal
        "consistency_modal_count": [5, None, 2**70][i % 3],  # unknown: extra_signals
        "consistency_samples": [[0, 3, None], [1.5, 2.0], None][i % 3],
        "consistency_note_rate": 0.125 * i,  # unknown, a float
        "inference_used": i % 2 == 0,
        "inference_marker": None if i % 2 else "m",
    }


def _row(pid: int, success: bool = True) -> dict[str, Any]:
    if not success:
        return {"participant_id": pid, "success": False, "error": {"why": "timeout"}}
    return {
        "participant_id": pid,
        "success": True,
        "error": None,
        "predicted_items": {k: [None, 0, 3][(pid + j) % 3] for j, k in enumerate(ITEMS)},
        "ground_truth_items": {k: (pid * j) % 4 for j, k in enumerate(ITEMS)},
        "item_signals": None if pid == 3 else {k: _signals(pid + j) for j, k in enumerate(ITEMS)},
    }


ROWS = [_row(7), _row(2, success=False), _row(3), _row(11), _row(-5)]


def _plain(rows: ExperimentRows) -> list[tuple[str, str, str, list[Any]]]:
    """Every column as (table, name, dtype, values with their Python types)."""
    out = []
    for part in ("participants", "items", "signals"):
        for name, col in getattr(rows, part).items():
            values = [repr(v) for v in col.tolist()] if col.dtype != object else [repr(v) for v in col]
            out.append((part, name, str(col.dtype), values))
    return out


def test_the_fast_path_gives_the_validators_columns(shared_dir):
    runs = [json.loads((shared_dir / "fixtures" / "runs" / f).read_text()) for f in ("public30.json",)]
    cases = [ROWS, *(e["results"]["results"] for run in runs for e in run["experiments"])]
    for rows in cases:
        fast = fast_rows(rows)
        assert fast is not None
        assert _plain(fast) == _plain(_row_by_row(rows, None))
    assert fast_rows(ROWS).signals["extra_signals"][0] == (  # type: ignore[union-attr]
        '{"consistency_modal_count": null, "consistency_note_rate": 0.875}'
    )


@pytest.mark.parametrize(
    "change",
    [
        lambda rows: rows[0].update(participant_id="7"),  # text id: the validator's to convert
        lambda rows: rows[3].update(participant_id=7),  # duplicated
        lambda rows: rows[0]["predicted_items"].update(Sleep=2.0),  # integral float score
        lambda rows: rows[0]["ground_truth_items"].update(Sleep=None),
        lambda rows: rows[0]["item_signals"]["Moving"].update(token_msp=0.5),  # a second key layout
        lambda rows: rows[0]["item_signals"]["Moving"].update(verbalized_confidence=6),
        lambda rows: rows[0]["item_signals"]["Moving"].update(llm_evidence_count=True),
        lambda rows: rows[0]["item_signals"]["Moving"].update(consistency_samples=[1, 10**400]),
        lambda rows: rows[0]["item_signals"]["Moving"].update(token_pe=1e400),
        lambda rows: rows[0]["item_signals"]["Moving"].update(consistency_modal_count="five"),
        lambda rows: rows[0].update(success=1),
    ],
)
def test_the_fast_path_refuses_what_it_does_not_check(change):
    rows = copy.deepcopy(ROWS)
    change(rows)
    assert fast_rows(rows) is None


def test_an_empty_experiment_has_empty_columns():
    fast = fast_rows([])
    assert fast is not None
    assert [len(c) for c in fast.items.values()] == [0] * 6
    assert np.array_equal(fast.participants["participant_id"], np.array([], dtype=np.int64))
