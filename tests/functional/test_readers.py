"""Commands that only read open the warehouse read-only, beside other readers; a writer that
finds it held says by whom and where BI tools belong (issue 24, item 16)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HOLD = (
    "import duckdb, sys; c = duckdb.connect(sys.argv[1], read_only=True); print('held', flush=True); "
    "sys.stdin.read()"
)


@pytest.fixture
def held(tmp_path: Path, run_cli):
    """A warehouse with one run, held open read-only by another process (a BI tool)."""
    wh = tmp_path / "w.duckdb"
    samples = tmp_path / "m.csv"
    samples.write_text("sample_id,confidence,correct\n1,0.5,1\n2,0.25,0\n")
    assert run_cli(["ingest", samples, "--warehouse", wh]).exit_code == 0
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(wh)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    yield wh, proc.pid
    proc.communicate("", timeout=30)


def test_reading_commands_run_beside_a_read_only_client(held, run_cli, tmp_path):
    wh, _ = held
    r = run_cli(["runs", "--json", "--warehouse", wh])
    assert (r.exit_code, r.stderr) == (0, "")
    assert [run["run_id"] for run in json.loads(r.stdout)] == ["m"]
    assert run_cli(["history", "--warehouse", wh]).exit_code == 0
    assert run_cli(["export", "runs", "--out", tmp_path / "out", "--warehouse", wh]).exit_code == 0


def test_a_writer_says_who_holds_the_warehouse(held, run_cli, tmp_path):
    wh, pid = held
    other = tmp_path / "n.csv"
    other.write_text("sample_id,confidence,correct\n1,0.5,1\n")
    r = run_cli(["ingest", other, "--warehouse", wh])
    assert r.exit_code == 3
    assert r.stderr.startswith(
        f"error: warehouse {wh} is locked by process {pid} ({sys.executable} -c import duckdb"
    )
    assert r.stderr.endswith(
        "wait for it or stop it. Commands that only read (runs, history, export, doctor) share the "
        "warehouse; BI tools belong on the published snapshot (riskcov publish), not on the warehouse\n"
    )
    assert r.stderr.count("\n") == 1
