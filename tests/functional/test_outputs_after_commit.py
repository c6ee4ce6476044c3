"""An output file appears only once what it reports is stored, is never half written, never
replaces a device or FIFO, and a Ctrl-C says what was stored (issue 24, items 5-9)."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
from pathlib import Path
from typing import Any

import duckdb
import pytest

QUICK = ["--bootstrap-resamples", "0", "--no-publish"]


@pytest.fixture(autouse=True)
def _ctrl_c_raises():
    """Ctrl-C raises KeyboardInterrupt in these tests, as under a terminal: a test runner
    started in the background inherits SIGINT ignored (a shell without job control ignores it
    for background commands), and then the tests' own SIGINT would be dropped."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    path = tmp_path / "m.csv"
    rows = "".join(f"{i},{(i + 1) / 11},{i % 3 == 0}\n" for i in range(10))
    path.write_text("sample_id,confidence,correct\n" + rows)
    return path


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _evaluations(path: Path) -> list[tuple[int, str]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("SELECT evaluation_id, artifact_path FROM evaluations ORDER BY 1").fetchall()
    finally:
        con.close()


def test_a_failed_commit_leaves_no_file(tmp_path):
    from riskcov.warehouse.duckdb_helpers import transaction
    from riskcov.warehouse.files import StagedOutput

    target = tmp_path / "out.json"
    con = duckdb.connect()
    con.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
    with pytest.raises(duckdb.Error), transaction(con) as tx:
        staged = StagedOutput(target, "{}\n")
        tx.then(staged.finish, staged.discard)
        con.execute("INSERT INTO t VALUES (1), (1)")
    assert sorted(os.listdir(tmp_path)) == []


def test_the_file_appears_with_the_commit_and_ctrl_c_waits_for_both(tmp_path):
    from riskcov.warehouse.committed import STORED
    from riskcov.warehouse.duckdb_helpers import transaction
    from riskcov.warehouse.files import StagedOutput

    target = tmp_path / "out.json"
    con = duckdb.connect()
    con.execute("CREATE TABLE t (x INTEGER)")
    STORED.clear()
    with pytest.raises(KeyboardInterrupt), transaction(con) as tx:
        con.execute("INSERT INTO t VALUES (1)")
        staged = StagedOutput(target, "{}\n")
        assert not target.exists()
        tx.stored = "row 1"
        # Ctrl-C right after COMMIT, before the rename: delivered once both are done
        tx.after_commit.insert(0, lambda: os.kill(os.getpid(), signal.SIGINT))
        tx.then(staged.finish, staged.discard)
    assert target.read_text() == "{}\n"
    assert con.execute("SELECT x FROM t").fetchall() == [(1,)]
    assert (STORED, sorted(os.listdir(tmp_path))) == (["row 1"], ["out.json"])
    STORED.clear()


def test_ctrl_c_after_the_evaluation_is_stored_says_so(samples, tmp_path, run_cli, monkeypatch):
    from riskcov.warehouse.files import StagedOutput

    finish = StagedOutput.finish

    def interrupted_finish(self: Any) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        finish(self)

    monkeypatch.setattr(StagedOutput, "finish", interrupted_finish)
    wh, out = tmp_path / "w.duckdb", tmp_path / "a.json"
    r = run_cli(["evaluate", "--input", samples, *QUICK, "--output", out, "--warehouse", wh])
    assert (r.exit_code, r.stderr) == (
        130,
        "error: interrupted after evaluation 1 was stored; the work in progress after it was rolled back\n",
    )
    assert _evaluations(wh) == [(1, str(out))]
    assert json.loads(out.read_text())["inputs"][0]["run_id"] == "m"


def _device(tmp_path: Path, device: str) -> Path:
    """A link to a device: old code replacing the path replaces the link, never the device."""
    link = tmp_path / f"{Path(device).name}.json"
    link.symlink_to(device)
    return link


def test_output_onto_a_character_device_writes_it_in_place(samples, tmp_path, run_cli):
    out = _device(tmp_path, "/dev/null")
    r = run_cli(
        ["evaluate", "--input", samples, *QUICK, "--output", out, "--warehouse", tmp_path / "w.duckdb"]
    )
    assert (r.exit_code, r.stderr) == (0, "")
    assert out.is_symlink() and stat.S_ISCHR(os.stat(out).st_mode)


def test_output_onto_a_full_device_says_the_evaluation_is_stored(samples, tmp_path, run_cli):
    out = _device(tmp_path, "/dev/full")
    wh = tmp_path / "w.duckdb"
    r = run_cli(["evaluate", "--input", samples, *QUICK, "--output", out, "--warehouse", wh])
    assert (r.exit_code, r.stderr) == (
        6,
        f"error: evaluation 1 is stored, but --output {out}: disk full (No space left on device); "
        "the artifact was not written\n",
    )
    assert out.is_symlink() and stat.S_ISCHR(os.stat(out).st_mode)


@pytest.mark.parametrize("command", ["evaluate", "curve"])
def test_output_onto_a_fifo_is_refused_and_stores_nothing(command, samples, tmp_path, run_cli, take_snapshot):
    wh = tmp_path / "w.duckdb"
    assert run_cli(["ingest", samples, "--warehouse", wh]).exit_code == 0
    before = take_snapshot(wh)
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    args = ["evaluate", "--input", "m", *QUICK]
    if command == "curve":
        args = ["curve", "m", "--format", "json"]
    r = run_cli([*args, "--output", fifo, "--warehouse", wh])
    what = "the artifact" if command == "evaluate" else "the curve"
    assert (r.exit_code, r.stderr) == (
        2,
        f"error: --output {fifo}: cannot write {what}: it is a named pipe (FIFO); give a file name or "
        "a character device\n",
    )
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert take_snapshot(wh) == before


def test_alpha_grid_above_the_largest_risk_is_refused(samples, tmp_path, run_cli):
    r = run_cli(
        ["evaluate", "--input", samples, *QUICK, "--alpha-grid", "1.5", "--warehouse", tmp_path / "w"]
    )
    assert (r.exit_code, r.stderr) == (
        2,
        "error: --alpha-grid 1.5 is outside [0, 1], the selective risk's range for loss abs_norm/given "
        "(--loss abs: [0, 3])\n",
    )


def test_a_killed_evaluates_staged_artifact_is_finished_or_removed(samples, tmp_path, run_cli):
    wh = tmp_path / "w.duckdb"
    assert run_cli(["evaluate", "--input", samples, *QUICK, "--warehouse", wh]).exit_code == 0
    ((_, first),) = _evaluations(wh)
    first_path = Path(first)
    text = first_path.read_text()
    # as if killed between COMMIT and the rename: the staged file of a dead process
    pid = _dead_pid()
    first_path.rename(first_path.with_name(f".{first_path.name}.{pid}.tmp"))
    # and one killed before COMMIT: its evaluation was never stored
    orphan = first_path.with_name(f".w_evaluation_7.json.{pid}.tmp")
    orphan.write_text(text)
    assert run_cli(["evaluate", "--input", "m", *QUICK, "--warehouse", wh]).exit_code == 0
    assert first_path.read_text() == text
    assert sorted(os.listdir(first_path.parent)) == ["w_evaluation_1.json", "w_evaluation_2.json"]


def test_a_killed_publishs_temp_file_is_removed(samples, tmp_path, run_cli):
    wh = tmp_path / "w.duckdb"
    assert run_cli(["ingest", samples, "--warehouse", wh]).exit_code == 0
    stale = tmp_path / f".riskcov-bi.duckdb.{_dead_pid()}.tmp"
    stale.write_bytes(b"\0" * 4096)
    alive = tmp_path / f".riskcov-bi.duckdb.{os.getppid()}.tmp"  # a running process's: kept
    alive.write_bytes(b"")
    assert run_cli(["publish", "--warehouse", wh]).exit_code == 0
    assert sorted(os.listdir(tmp_path)) == sorted(
        [alive.name, "m.csv", "riskcov-bi.duckdb", "w.duckdb", *(["w.duckdb.wal"] * 0)]
    )


def test_a_bootstrap_that_cannot_fit_is_refused_before_it_starts(samples, tmp_path, run_cli, monkeypatch):
    from riskcov.bootstrap import memory

    monkeypatch.setattr(memory, "available", lambda: 300 * 2**20)
    wh = tmp_path / "w.duckdb"
    args = ["evaluate", "--input", samples, "--bootstrap-resamples", "1000000", "--no-publish"]
    r = run_cli([*args, "--warehouse", wh])
    # 200 MiB + 1,000,000 x 1 series x 48 values x 40 bytes; (300 - 200) MiB / 1,920 bytes
    assert (r.exit_code, r.stderr) == (
        6,
        "error: --bootstrap-resamples 1,000,000 for 1 series needs about 2.0 GB of memory; 0.3 GB is "
        "available: use at most about 54,613 resamples (or fewer confidences); nothing was stored\n",
    )
    assert _evaluations(wh) == []
