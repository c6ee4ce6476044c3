"""`riskcov doctor` and the space a killed writer leaves in the warehouse file
(docs/reliability.md#the-files-size): the file grows, doctor reports it exactly, and the next
writing command (or `doctor --reclaim`) gives it back."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from riskcov.warehouse.health import HEADER_BYTES

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "example_run.json"
GROWN = 24 << 20  # what the killed writer must have written before it is killed

# a writer that stores nothing: a large table inside a transaction that never commits (DuckDB
# writes big inserts' row groups into the file before COMMIT, as an ingest of a large file does)
WRITER = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1], config={"storage_compatibility_version": "v1.4.0"})
con.execute("BEGIN")
con.execute("CREATE TABLE killed AS SELECT i, random() AS r FROM range(40000000) t(i)")
time.sleep(60)
"""


def _kill_while_writing(path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)])
    try:
        deadline = time.monotonic() + 30
        while path.stat().st_size < GROWN:
            assert proc.poll() is None, "the writer ended before the file grew"
            assert time.monotonic() < deadline, "the file did not grow"
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def _doctor(run_cli, path: Path) -> dict:
    res = run_cli(["doctor", "--json", "--warehouse", path])
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


PRAGMA = "SELECT block_size, total_blocks, used_blocks, free_blocks FROM pragma_database_size()"


def _expected(sql, path: Path) -> dict:
    """The figures doctor must report, from os.stat and DuckDB's own PRAGMA (read apart)."""
    ((block, total, used, free),) = sql(path, PRAGMA)
    size = os.stat(path).st_size
    return {
        "file_bytes": size,
        "block_size": block,
        "total_blocks": total,
        "used_blocks": used,
        "free_blocks": free,
        "content_bytes": HEADER_BYTES + used * block,
        "unused_bytes": size - HEADER_BYTES - used * block,
    }


FIGURES = ("file_bytes", "block_size", "total_blocks", "used_blocks", "free_blocks")
FIGURES += ("content_bytes", "unused_bytes")


def _figures(report: dict) -> dict:
    return {k: report[k] for k in FIGURES}


def test_a_killed_writer_grows_the_file_and_the_next_ingest_gives_it_back(
    run_cli, sql, warehouse_path, tmp_path
):
    assert run_cli(["ingest", EXAMPLE, "--warehouse", warehouse_path]).exit_code == 0
    before = _doctor(run_cli, warehouse_path)
    assert _figures(before) == _expected(sql, warehouse_path)
    assert before["unused_bytes"] < 2 << 20
    assert (before["runs"], before["experiments"]) == (1, 2)
    assert before["migrations_pending"] == [] and before["migrations_applied"][0] == "0001_core"

    _kill_while_writing(warehouse_path)
    grown = _doctor(run_cli, warehouse_path)
    assert _figures(grown) == _expected(sql, warehouse_path)
    assert grown["file_bytes"] >= GROWN
    assert grown["used_blocks"] == before["used_blocks"]  # nothing of the killed writer is stored
    assert grown["unused_bytes"] >= GROWN - before["file_bytes"]
    assert (grown["runs"], grown["experiments"]) == (1, 2)
    console = run_cli(["doctor", "--warehouse", warehouse_path]).stdout.splitlines()
    size = grown["file_bytes"]
    assert f"file size        {size} bytes ({size / (1 << 20):.1f} MiB)" in console
    assert console[-1] == (
        f"{grown['unused_bytes'] / (1 << 20):.1f} MiB free inside the file; the next writing command, "
        "or `riskcov doctor --reclaim`, gives it back"
    )

    small = tmp_path / "two.csv"
    small.write_text("sample_id,confidence,correct\n1,0.9,1\n2,0.4,0\n")
    assert run_cli(["ingest", small, "--warehouse", warehouse_path]).exit_code == 0
    after = _doctor(run_cli, warehouse_path)
    assert _figures(after) == _expected(sql, warehouse_path)
    assert (after["runs"], after["experiments"]) == (2, 3)
    # the killed writer's blocks are gone; what is left is the new run's and a few free blocks
    assert after["file_bytes"] < before["file_bytes"] + (4 << 20)
    assert "free inside the file" not in run_cli(["doctor", "--warehouse", warehouse_path]).stdout


def test_reclaim_gives_the_space_back_without_storing_anything_else(
    run_cli, sql, warehouse_path, take_snapshot
):
    assert run_cli(["ingest", EXAMPLE, "--warehouse", warehouse_path]).exit_code == 0
    stored = take_snapshot(warehouse_path)
    before = os.stat(warehouse_path).st_size
    _kill_while_writing(warehouse_path)
    res = run_cli(["doctor", "--reclaim", "--json", "--warehouse", warehouse_path])
    assert res.exit_code == 0, res.stderr
    report = json.loads(res.stdout)
    assert _figures(report) == _expected(sql, warehouse_path)
    assert report["file_bytes"] < before + (4 << 20)
    assert take_snapshot(warehouse_path) == stored


def test_doctor_names_a_dead_process_temp_file_and_reads_only(run_cli, warehouse_path):
    assert run_cli(["ingest", EXAMPLE, "--warehouse", warehouse_path]).exit_code == 0
    dead = warehouse_path.with_name(".riskcov-bi.duckdb.999999999.tmp")
    dead.write_bytes(b"partial")
    mtime = os.stat(warehouse_path).st_mtime_ns
    lines = run_cli(["doctor", "--warehouse", warehouse_path]).stdout.splitlines()
    assert f"stale temp file  {dead} (of a process that no longer runs)" in lines
    assert os.stat(warehouse_path).st_mtime_ns == mtime
    assert _doctor(run_cli, warehouse_path)["stale_temp_files"] == [str(dead)]


@pytest.mark.parametrize("kind", ["missing", "not duckdb"])
def test_doctor_refuses_what_is_not_a_warehouse(run_cli, tmp_path, kind):
    path = tmp_path / "w.duckdb"
    if kind == "not duckdb":
        path.write_text("{}")
    res = run_cli(["doctor", "--warehouse", path])
    assert res.exit_code == (1 if kind == "missing" else 2)
    assert len(res.stderr.splitlines()) == 1 and res.stderr.startswith("error: ")
    assert path.exists() == (kind == "not duckdb")


HOLDER = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
print("holding", flush=True)
time.sleep(60)
"""


def test_doctor_on_a_warehouse_a_writer_holds_reports_the_file_and_the_holder(run_cli, warehouse_path):
    assert run_cli(["ingest", EXAMPLE, "--warehouse", warehouse_path]).exit_code == 0
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(warehouse_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        report = _doctor(run_cli, warehouse_path)
        lines = run_cli(["doctor", "--warehouse", warehouse_path]).stdout.splitlines()
    finally:
        holder.kill()
        holder.wait()
    assert report["file_bytes"] == os.stat(warehouse_path).st_size
    assert (report["used_blocks"], report["runs"], report["content_bytes"]) == (None, None, None)
    assert report["locked_by"].startswith(
        f"warehouse {warehouse_path} is being written by process {holder.pid}"
    )
    assert lines[3] == f"locked           {report['locked_by']}"
