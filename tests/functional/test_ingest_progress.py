"""The ingest progress bar moves with the work (issue 11, item 10): by bytes over the files,
and inside a PHQ-8 run file through parsing, validating (by participants) and storing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from riskcov.cli.ingest import _tracker
from riskcov.formats import IngestOptions
from riskcov.formats.phq8_json import parse
from riskcov.formats.phq8_json.parse import PARSED, VALIDATED


def test_the_bar_moves_by_bytes_and_by_the_reported_share():
    calls: list[dict[str, Any]] = []
    a, b = Path("a.json"), Path("b.json")
    progress, on_file = _tracker(lambda **kw: calls.append(kw), {a: 100, b: 300})
    assert progress is not None and on_file is not None
    on_file(a)
    progress(0.5, "validating")
    on_file(b)
    progress(0.25, "parsing JSON")
    assert calls == [
        {"completed": 0, "description": "ingesting a.json"},
        {"completed": 50.0, "description": "validating a.json"},
        {"completed": 100, "description": "ingesting b.json"},
        {"completed": 175.0, "description": "parsing JSON b.json"},
    ]
    assert _tracker(None, {a: 1}) == (None, None)  # no bar (not a terminal): nothing to move


def test_a_run_file_reports_each_stage_in_order(shared_dir):
    path = shared_dir / "fixtures" / "runs" / "public30.json"  # 2 experiments of 30 participants
    seen: list[tuple[float, str]] = []
    parse(
        None,
        path,
        path.read_bytes(),
        IngestOptions(progress=lambda share, stage: seen.append((share, stage))),
    )
    half = PARSED + (VALIDATED - PARSED) / 2
    assert seen == [
        (0.0, "parsing JSON"),
        (PARSED, "validating"),
        (half, "validating"),
        (half, "validating"),
        (VALIDATED, "validating"),
        (VALIDATED, "storing"),
    ]
