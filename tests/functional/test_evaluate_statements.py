"""What `evaluate` asks DuckDB, counted from DuckDB's query log: a value that cannot change
within an evaluation is read once (warehouse_meta when the warehouse is opened, the chunks'
shape of eval_cells), and whether an input was ingested on the fly comes from the ingest
itself, not from counting the runs before and after."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import duckdb
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "example_run.json"


def _statements(run_cli: Any, monkeypatch: pytest.MonkeyPatch, logs: Path, args: list[Any]) -> list[str]:
    """The statements of one in-process CLI call, every connection of it logged to `logs`."""
    connect = duckdb.connect

    def logged(*a: Any, **k: Any) -> duckdb.DuckDBPyConnection:
        con = connect(*a, **k)
        con.execute(f"CALL enable_logging('QueryLog', storage = 'file', storage_path = '{logs}')")
        return con

    with monkeypatch.context() as patch:
        patch.setattr(duckdb, "connect", logged)
        done = run_cli(args)
    assert done.exit_code == 0, done.stderr
    with (logs / "duckdb_log_entries.csv").open() as f:
        return [" ".join(row["message"].split()) for row in csv.DictReader(f) if row["type"] == "QueryLog"]


def test_an_evaluation_reads_what_cannot_change_once(run_cli, monkeypatch, tmp_path):
    wh = tmp_path / "w.duckdb"
    args = ["evaluate", "--warehouse", wh, "--input", EXAMPLE, "--mode", "few_shot", "--no-publish"]
    args += ["--bootstrap-resamples", "50", "--output", tmp_path / "a.json"]
    first = _statements(run_cli, monkeypatch, tmp_path / "log1", args)  # a new warehouse: the file ingested
    again = _statements(run_cli, monkeypatch, tmp_path / "log2", args)  # the run already there
    for statements in (first, again):
        assert not [s for s in statements if "FROM runs" in s and "count(" in s]
        shape = [s for s in statements if "FILTER (WHERE NOT shared)" in s]
        assert len(shape) == 1, shape
        assert sum("INSERT INTO runs" in s for s in statements) == (statements is first)
    meta = [s for s in again if "FROM warehouse_meta" in s]
    assert meta == ["SELECT key, value FROM warehouse_meta"]
