"""Input edges that used to be reported as riskcov bugs (exit 70) or pass unnoticed (issue 24,
items 14-15): hostile --features, a deeply nested or unknown-version calibrator, control
characters in identifiers, and a full disk (exit 6, nothing stored)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "example_run.json"
CLI = [sys.executable, "-c", "from riskcov.cli import main; main()"]


@pytest.mark.parametrize(
    "features",
    ["x'); DROP TABLE runs;--", "token msp", "1abc", "a\x1bb"],
    ids=["injection", "space", "digit-first", "escape"],
)
def test_a_bad_feature_name_is_one_usage_line(features, tmp_path, run_cli):
    args = ["calibrate", "--input", EXAMPLE, "--method", "platt", "--features", features]
    r = run_cli([*args, "--warehouse", tmp_path / "w.duckdb"])
    shown = features.replace("\x1b", "\\x1b")
    assert (r.exit_code, r.stderr) == (
        2,
        f"error: --features {shown}: not a signal name (letters, digits and _, not starting with a digit)\n",
    )
    assert not (tmp_path / "w.duckdb").exists()


def _calibrator(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cal.json"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("[" * 100_000 + "]" * 100_000, "not valid JSON: nested too deeply"),
        (
            json.dumps({"schema_version": "99", "method": "temperature_scaling", "temperature": 2.0}),
            'schema_version = "99" is not one this riskcov reads (1)',
        ),
        (
            json.dumps({"method": "platt", "features": ["token_msp\n"], "target": "correctness"}),
            'features[0] = "token_msp\\n" is not a signal name',
        ),
    ],
    ids=["deep", "schema-99", "feature-newline"],
)
def test_a_bad_calibrator_is_one_input_line(text, why, tmp_path, run_cli):
    cal = _calibrator(tmp_path, text)
    args = [
        "evaluate",
        "--input",
        EXAMPLE,
        "--mode",
        "few_shot",
        "--confidence",
        "calibrated",
        "--calibration",
        cal,
    ]
    r = run_cli([*args, "--bootstrap-resamples", "0", "--warehouse", tmp_path / "w.duckdb"])
    assert (r.exit_code, r.stderr) == (1, f"error: {cal}: {why}\n")


@pytest.mark.parametrize("run_id", ["a\nb", "red\x1b[31m", "tab\there"])
def test_control_characters_in_a_run_id_are_refused(run_id, tmp_path, run_cli):
    doc = json.loads(EXAMPLE.read_text())
    doc["run_metadata"]["run_id"] = run_id
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc))
    r = run_cli(["ingest", path, "--warehouse", tmp_path / "w.duckdb"])
    shown = run_id.encode("unicode_escape").decode()
    assert (r.exit_code, r.stderr) == (
        1,
        f"error: {path}: run_id {shown} holds a control character; refused\n",
    )


def test_a_per_sample_run_id_with_a_newline_is_refused(tmp_path, run_cli):
    path = tmp_path / "m.csv"
    path.write_text("sample_id,confidence,correct\n1,0.5,1\n")
    r = run_cli(["ingest", path, "--run-id", "x\ny", "--warehouse", tmp_path / "w.duckdb"])
    assert (r.exit_code, r.stderr) == (1, f"error: {path}: run_id x\\ny holds a control character; refused\n")


def _limited(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_full_disk_is_exit_6_and_stores_nothing(tmp_path, run_cli, take_snapshot):
    wh = tmp_path / "w.duckdb"
    small = tmp_path / "small.csv"
    small.write_text("sample_id,confidence,correct\n1,0.5,1\n")
    assert run_cli(["ingest", small, "--warehouse", wh]).exit_code == 0
    before = take_snapshot(wh)
    big = tmp_path / "big.csv"
    rows = "".join(f"{i},{(i % 997) / 997},{i % 3 == 0}\n" for i in range(200_000))
    big.write_text("sample_id,confidence,correct\n" + rows)
    limit = wh.stat().st_size + (1 << 20)  # room for the WAL, not for the run
    env = {**os.environ, "RISKCOV_PUBLISH": "0"}
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from riskcov.cli import main; main()",
            "ingest",
            str(big),
            "--warehouse",
            str(wh),
        ],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=lambda: _limited(limit),
        timeout=120,
        check=False,
    )
    assert proc.returncode == 6, proc.stderr
    assert proc.stderr.startswith("error: disk full (")
    assert proc.stderr.endswith("File too large); nothing of this command was stored\n")
    assert proc.stderr.count("\n") == 1
    assert take_snapshot(wh) == before
