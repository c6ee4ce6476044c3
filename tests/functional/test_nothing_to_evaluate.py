"""An evaluation of no participant is refused (one line, exit 1, nothing stored), never reported
as AURC 0 with a CI of [0, 0]: a PHQ-8 experiment whose participants all failed, and a pair
whose only successful participants differ."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "example_run.json"


def _failed(entry: dict) -> dict:
    return {"participant_id": entry["participant_id"], "success": False, "error": "boom"}


@pytest.fixture
def warehouse(tmp_path, run_cli) -> Path:
    """Run `allfail`: every participant failed in both experiments; run `crossed`: zero_shot's
    even-numbered and few_shot's odd-numbered participants failed."""
    run = json.loads(EXAMPLE.read_text())
    run["run_metadata"]["run_id"] = "allfail"
    for exp in run["experiments"]:
        exp["results"]["results"] = [_failed(p) for p in exp["results"]["results"]]
    (tmp_path / "allfail.json").write_text(json.dumps(run))
    run = json.loads(EXAMPLE.read_text())
    run["run_metadata"]["run_id"] = "crossed"
    for side, exp in enumerate(run["experiments"]):
        people = exp["results"]["results"]
        exp["results"]["results"] = [p if i % 2 != side else _failed(p) for i, p in enumerate(people)]
    (tmp_path / "crossed.json").write_text(json.dumps(run))
    wh = tmp_path / "w.duckdb"
    r = run_cli(["ingest", tmp_path / "allfail.json", tmp_path / "crossed.json", "--warehouse", wh])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    return wh


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--input", "allfail", "--mode", "few_shot"],
            "--input allfail: experiment few_shot has no successful participant (41 failed): "
            "nothing to evaluate",
        ),
        (
            ["--input", "crossed", "--mode", "zero_shot", "--mode", "few_shot"],
            "the two inputs share no participant successful in both (41 in both inputs, 0 only in "
            "the left, 0 only in the right): nothing to compare",
        ),
    ],
)
def test_no_participant_to_evaluate_is_refused(args, message, warehouse, run_cli, tmp_path):
    out = tmp_path / "a.json"
    r = run_cli(["evaluate", *args, "--bootstrap-resamples", "10", "--output", out, "--warehouse", warehouse])
    assert (r.exit_code, r.stdout, r.stderr) == (1, "", f"error: {message}\n")
    assert not out.exists()
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM evaluations").fetchall() == [(0,)]
    finally:
        con.close()


def test_a_non_empty_set_is_evaluated(warehouse, run_cli, tmp_path):
    """The refusal is for an empty set only: `crossed`'s zero_shot alone keeps its odd-numbered
    participants that had not failed already."""
    people = json.loads(EXAMPLE.read_text())["experiments"][0]["results"]["results"]
    kept = sum(1 for i, p in enumerate(people) if i % 2 == 1 and p["success"])
    args = ["--input", "crossed", "--mode", "zero_shot", "--bootstrap-resamples", "0", "--json"]
    r = run_cli(["evaluate", *args, "--warehouse", warehouse])
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["population"]["participants_included"] == kept > 0
