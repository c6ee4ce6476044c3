"""`riskcov ingest` reads and hashes its first file ahead while the warehouse opens
(riskcov.warehouse.read_ahead), and stores what it read."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb

from riskcov.warehouse import files, read_ahead

ROOT = Path(__file__).resolve().parents[2]


def _refuse_in_place(*_: object) -> tuple[bytes, str]:
    raise AssertionError("read in place, not ahead")


def test_ingest_reads_its_first_file_ahead(tmp_path, monkeypatch, run_cli):
    example = ROOT / "examples" / "example_run.json"
    warehouse = tmp_path / "w.duckdb"
    monkeypatch.setattr(read_ahead, "AHEAD_BYTES", 0)
    monkeypatch.setattr(files, "read_hashed", _refuse_in_place)
    result = run_cli(["ingest", example, "--warehouse", warehouse, "--no-publish"])
    assert result.exit_code == 0, result.stderr
    con = duckdb.connect(str(warehouse), read_only=True)
    (sha,) = con.execute("SELECT sha256 FROM runs").fetchone()
    assert sha == hashlib.sha256(example.read_bytes()).hexdigest()
