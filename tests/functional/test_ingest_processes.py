"""A large run's batches are decoded by child processes (formats/phq8_json/decoders.py): they
end with the ingest, also when it fails or is killed, and the warehouse is then as before.
Here the processes are used for small fixtures (decoders.PROCESS_BYTES 0, tiny batches)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from riskcov.errors import ResourceError
from riskcov.formats import phq8_json
from riskcov.formats.phq8_json import decoders, typed

_SERVE = "decoders import serve"  # in a decoding process's command line


def _decoding_children(parent: int) -> list[int]:
    """The live decoding processes whose parent is `parent` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read().decode(errors="replace")
        except OSError:
            continue
        if int(stat[1]) == parent and stat[0] != "Z" and _SERVE in cmdline:
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except OSError:
        return False


def _many(shared_dir: Path, folder: Path, copies: int) -> Path:
    """public30 with its first experiment's participants repeated `copies` times (new ids)."""
    doc = json.loads((shared_dir / "fixtures" / "runs" / "public30.json").read_text())
    people = doc["experiments"][0]["results"]["results"]
    doc["experiments"][0]["results"]["results"] = [
        {**p, "participant_id": p["participant_id"] + 100_000 * c} for c in range(copies) for p in people
    ]
    path = folder / "many.json"
    path.write_text(json.dumps(doc))
    return path


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def test_a_killed_ingest_leaves_no_decoding_process_and_the_warehouse_unchanged(
    shared_dir, tmp_path, run_cli, take_snapshot
):
    warehouse = tmp_path / "w.duckdb"
    good = shared_dir / "fixtures" / "runs" / "worked_example.json"
    assert run_cli(["ingest", good, "--warehouse", warehouse, "--no-publish"]).exit_code == 0
    before = take_snapshot(warehouse)
    path = _many(shared_dir, tmp_path, 40)  # 1,200 participants in ~600-byte batches: seconds
    code = (
        "import sys\n"
        "from riskcov.formats.phq8_json import decoders, typed\n"
        "decoders.PROCESS_BYTES, typed.BATCH_BYTES = 0, 600\n"
        "from riskcov.cli import console\n"
        f"sys.argv = ['riskcov', 'ingest', {str(path)!r}, '--warehouse', {str(warehouse)!r}, "
        "'--no-publish']\n"
        "console()\n"
    )
    cli = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    children: list[int] = []
    deadline = time.monotonic() + 60
    while len(children) < decoders.PROCESSES and cli.poll() is None and time.monotonic() < deadline:
        children = _decoding_children(cli.pid)
        time.sleep(0.02)
    assert len(children) == decoders.PROCESSES, cli.stderr.read() if cli.stderr else ""
    time.sleep(0.5)  # batches are stored meanwhile
    assert cli.poll() is None  # still ingesting: killed mid-way
    cli.send_signal(signal.SIGKILL)
    cli.wait()
    deadline = time.monotonic() + 10
    while any(map(_alive, children)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(_alive, children))
    assert take_snapshot(warehouse) == before


def test_a_decoding_process_that_dies_is_an_error_and_the_warehouse_is_unchanged(
    shared_dir, tmp_path, run_cli, take_snapshot, monkeypatch
):
    """A child killed (by the kernel, for memory, say): exit 6, nothing stored, no child left."""
    warehouse = tmp_path / "w.duckdb"
    good = shared_dir / "fixtures" / "runs" / "worked_example.json"
    assert run_cli(["ingest", good, "--warehouse", warehouse, "--no-publish"]).exit_code == 0
    before = take_snapshot(warehouse)
    start = decoders._start
    started: list[int] = []

    def doomed() -> Any:
        proc, conn = start()
        if not started:  # the first child is killed at once
            proc.kill()
        started.append(proc.pid)
        return proc, conn

    monkeypatch.setattr(decoders, "_start", doomed)
    monkeypatch.setattr(decoders, "PROCESS_BYTES", 0)
    monkeypatch.setattr(typed, "BATCH_BYTES", 600)
    path = shared_dir / "fixtures" / "runs" / "public30.json"
    result = run_cli(["ingest", path, "--warehouse", warehouse, "--no-publish"])
    assert (result.exit_code, result.stdout) == (ResourceError.exit_code, "")
    assert result.stderr == (
        f"error: {path}: a process decoding the participants ended unexpectedly "
        "(killed, perhaps for lack of memory); nothing was stored\n"
    )
    assert len(started) == decoders.PROCESSES
    assert not any(map(_alive, started))
    assert take_snapshot(warehouse) == before


def test_the_decoding_processes_give_the_columns_of_the_thread(shared_dir):
    """Each batch's store columns from the children equal those decoded here, batch for batch,
    over both experiments of a fixture (ids repeat across experiments, not within one)."""
    from riskcov.formats.phq8_json.lean import lean

    data = (shared_dir / "fixtures" / "runs" / "public30.json").read_bytes()
    for size in (600, 5_000, 2**40):
        plan = typed.typed_plan(data)
        assert plan is not None
        here = [lean(rows) for p in plan[1] for rows in p.batches(size)]
        counts = [list(p.counts) for p in plan[1]]
        plan = typed.typed_plan(data)
        assert plan is not None
        with decoders.Decoders() as pool:
            there = list(pool.lean_batches([1, 2], plan[1], size))
            children = _decoding_children(os.getpid())
        assert len(there) == len(here) > (50 if size == 600 else 1)
        assert [p.counts for p in plan[1]] == counts
        for (eid, got), want in zip(there, here, strict=True):
            assert eid in (1, 2)
            for part in ("participants", "items", "signals"):
                a, b = getattr(got, part), getattr(want, part)
                assert a.select == b.select
                assert a.columns.keys() == b.columns.keys()
                for name, column in a.columns.items():
                    other = b.columns[name]
                    assert column.dtype == other.dtype
                    if column.dtype == object:  # text, or lists of doubles and nulls
                        assert column.tolist() == other.tolist()
                    else:  # bit for bit (NaN included)
                        assert column.tobytes() == other.tobytes()
        assert not any(map(_alive, children))


def test_a_decoding_process_that_cannot_start_riskcov_is_named(shared_dir, tmp_path, run_cli, monkeypatch):
    """An interpreter that exits at once (here /bin/false for python): its exit status, exit 6."""
    false = Path("/bin/false")
    if not false.exists():
        pytest.skip("no /bin/false")
    monkeypatch.setattr(sys, "executable", str(false))
    monkeypatch.setattr(decoders, "PROCESS_BYTES", 0)
    monkeypatch.setattr(typed, "BATCH_BYTES", 600)
    path = shared_dir / "fixtures" / "runs" / "public30.json"
    result = run_cli(["ingest", path, "--warehouse", tmp_path / "w.duckdb", "--no-publish"])
    assert (result.exit_code, result.stdout) == (ResourceError.exit_code, "")
    assert result.stderr == (
        f"error: {path}: a process decoding the participants ended unexpectedly (exit status 1: "
        f"is riskcov importable by {false}?); nothing was stored\n"
    )


def test_where_no_process_can_start_the_batches_are_decoded_here(
    shared_dir, tmp_path, run_cli, sql, monkeypatch
):
    path = shared_dir / "fixtures" / "runs" / "public30.json"
    assert run_cli(["ingest", path, "--warehouse", tmp_path / "a.duckdb", "--no-publish"]).exit_code == 0

    calls: list[int] = []

    def refused() -> Any:
        calls.append(1)
        raise OSError("no processes here")

    monkeypatch.setattr(decoders, "_start", refused)
    monkeypatch.setattr(decoders, "PROCESS_BYTES", 0)
    monkeypatch.setattr(typed, "BATCH_BYTES", 600)
    assert run_cli(["ingest", path, "--warehouse", tmp_path / "b.duckdb", "--no-publish"]).exit_code == 0
    assert calls == [1]  # tried once, then the thread
    for table in ("participants", "items", "item_signals", "metrics", "rc_points"):
        query = f"SELECT * EXCLUDE (experiment_id) FROM {table} ORDER BY rowid"
        assert sql(tmp_path / "b.duckdb", query) == sql(tmp_path / "a.duckdb", query)


def _started(monkeypatch: pytest.MonkeyPatch) -> list[subprocess.Popen[bytes]]:
    """Every decoding process started from now on (decoders._start spied)."""
    started: list[subprocess.Popen[bytes]] = []
    start = decoders._start

    def spy() -> Any:
        proc, conn = start()
        started.append(proc)
        return proc, conn

    monkeypatch.setattr(decoders, "_start", spy)
    return started


def test_the_processes_started_while_a_file_is_parsed_are_those_the_store_takes(
    shared_dir, tmp_path, run_cli, sql, monkeypatch
):
    """Started early (their start overlaps the parse), once per file: the store takes them and
    starts none; an unchanged file (same sha256) starts none; none is left after either."""
    path = shared_dir / "fixtures" / "runs" / "public30.json"
    assert run_cli(["ingest", path, "--warehouse", tmp_path / "a.duckdb", "--no-publish"]).exit_code == 0
    monkeypatch.setattr(decoders, "PROCESS_BYTES", 0)
    monkeypatch.setattr(typed, "BATCH_BYTES", 600)
    taken: list[int] = []
    real = decoders.start
    monkeypatch.setattr(decoders, "start", lambda: taken.append(1) or real())
    started = _started(monkeypatch)
    at_parse: list[int] = []
    parse = phq8_json.parse

    def parsed(*args: Any) -> Any:
        at_parse.append(len(started))
        return parse(*args)

    monkeypatch.setattr(phq8_json, "parse", parsed)
    warehouse = tmp_path / "b.duckdb"
    assert run_cli(["ingest", path, "--warehouse", warehouse, "--no-publish"]).exit_code == 0
    assert (at_parse, len(started), taken) == ([decoders.PROCESSES], decoders.PROCESSES, [1])
    assert run_cli(["ingest", path, "--warehouse", warehouse, "--no-publish"]).stdout.count("unchanged") == 1
    assert len(started) == decoders.PROCESSES
    assert all(proc.poll() is not None for proc in started) and _decoding_children(os.getpid()) == []
    for table in ("participants", "items", "item_signals", "metrics", "rc_points"):
        query = f"SELECT * EXCLUDE (experiment_id) FROM {table} ORDER BY rowid"
        assert sql(warehouse, query) == sql(tmp_path / "a.duckdb", query)


@pytest.mark.parametrize("problem", ["bad participant", "run_id taken"])
def test_a_file_refused_after_the_processes_started_ends_them_and_stores_nothing(
    problem, shared_dir, tmp_path, run_cli, take_snapshot, monkeypatch
):
    """Refused by the full checker in the parse, or for its run_id before the store: the
    processes started for it end with the refusal (none left), the warehouse is unchanged."""
    warehouse = tmp_path / "w.duckdb"
    good = shared_dir / "fixtures" / "runs" / "public30.json"
    assert run_cli(["ingest", good, "--warehouse", warehouse, "--no-publish"]).exit_code == 0
    doc = json.loads(good.read_text())
    if problem == "bad participant":
        doc["run_metadata"]["run_id"] = "another"
        doc["experiments"][0]["results"]["results"][3]["predicted_items"]["Sleep"] = 9
    else:
        doc["run_metadata"]["timestamp"] = "2026-01-01T00:00:00"  # other content, same run_id
    path = tmp_path / "other.json"
    path.write_text(json.dumps(doc))
    before = take_snapshot(warehouse)
    monkeypatch.setattr(decoders, "PROCESS_BYTES", 0)
    monkeypatch.setattr(typed, "BATCH_BYTES", 600)
    started = _started(monkeypatch)
    result = run_cli(["ingest", path, "--warehouse", warehouse, "--no-publish"])
    assert result.exit_code != 0 and result.stderr.count("\n") == 1, result.stderr
    assert ("Sleep" in result.stderr) == (problem == "bad participant")
    assert ("already ingested" in result.stderr) == (problem == "run_id taken")
    assert len(started) == decoders.PROCESSES
    assert all(proc.poll() is not None for proc in started) and _decoding_children(os.getpid()) == []
    assert take_snapshot(warehouse) == before
