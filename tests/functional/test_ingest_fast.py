"""The SQL reader of run JSON (formats/phq8_json/fast.py) against the Python reader: the same
rows for good files, the Python reader's exact message for bad ones (the SQL reader hands
every unusual file over), and the shapes where DuckDB's JSON reader and Python's json differ."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from test_ingest import BAD_FILE_ERRORS, WORKED_VARIANTS, _p0, good_files, seeded, worked  # noqa: F401

from riskcov.formats.phq8_json import fast

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "example_run.json"
TABLES = {
    "participants": "participant_id, success, error, has_signals",
    "items": "participant_id, item_index, item_name, pred, gt",
    "item_signals": "* EXCLUDE (experiment_id)",
    "experiments": "experiment_index, mode, provenance, item_names",
    "runs": "run_id, git_commit, timestamp, run_metadata, input_format",
}


@pytest.fixture
def sql_reader(monkeypatch):
    """Every file goes through the SQL reader, however small."""
    monkeypatch.setattr(fast, "MIN_BYTES", 0)


def dump(sql, warehouse: Path) -> dict[str, list[tuple[Any, ...]]]:
    return {t: sql(warehouse, f"SELECT {cols} FROM {t} ORDER BY ALL") for t, cols in TABLES.items()}


def ingest_both(path: Path, tmp_path: Path, run_cli, sql, monkeypatch) -> tuple[Any, Any]:
    """The warehouse contents after the SQL reader and after the Python reader."""
    out = []
    for name, min_bytes in (("sql", 0), ("python", 1 << 62)):
        monkeypatch.setattr(fast, "MIN_BYTES", min_bytes)
        wh = tmp_path / f"{name}.duckdb"
        result = run_cli(["ingest", path, "--warehouse", wh])
        assert (result.exit_code, result.stderr) == (0, ""), result.stderr
        out.append(dump(sql, wh))
    return out[0], out[1]


def staged(path: Path) -> fast.Staged | None:
    con = duckdb.connect()
    try:
        return fast.stage(con, path, path.read_bytes())
    finally:
        fast.drop(con)


def test_the_good_files_take_the_sql_path(shared_dir, sql_reader):
    for path in [*good_files(shared_dir), EXAMPLE]:
        run = staged(path)
        assert run is not None, path.name
        doc = json.loads(path.read_text())
        rows = [r for e in doc["experiments"] for r in e["results"]["results"]]
        assert (run.run_id, run.n_participants) == (doc["run_metadata"]["run_id"], len(rows))
        assert run.n_items == 8 * sum(1 for r in rows if r["success"])


def test_both_readers_store_the_same_rows(shared_dir, tmp_path, run_cli, sql, monkeypatch):
    for path in [*good_files(shared_dir), EXAMPLE]:
        by_sql, by_python = ingest_both(path, tmp_path / path.stem, run_cli, sql, monkeypatch)
        assert by_sql == by_python, path.name
        assert by_sql["item_signals"], path.name


def test_pretty_printed_file_takes_the_sql_path_with_the_same_rows(
    worked, tmp_path, run_cli, sql, monkeypatch
):
    _p0(worked)["participant_id"] = "101"  # a numeric string id is an integer
    _p0(worked)["error"] = "caf\u00e9 [unbalanced"
    path = tmp_path / "pretty.json"
    path.write_text(json.dumps(worked, indent=2, ensure_ascii=False))
    monkeypatch.setattr(fast, "MIN_BYTES", 0)
    assert staged(path) is not None
    by_sql, by_python = ingest_both(path, tmp_path, run_cli, sql, monkeypatch)
    assert by_sql == by_python
    assert by_sql["participants"][0][:3] == (101, True, "caf\u00e9 [unbalanced")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"success": true', '"success": false, "success": true'),  # Python keeps the last
        ('"token_msp": 0.5', '"token_msp": 0.5, "my_float": 0.25'),  # float among unknown keys
        ('"token_msp": 0.5', '"token_msp": 0.5, "note": "a, b: c"'),
        ('"llm_evidence_count": 2', '"llm_evidence_count": 2.0'),  # integral float count
        ('"NoInterest": 2', '"NoInterest": 2.0'),
    ],
)
def test_shapes_the_sql_path_hands_over_still_ingest_alike(
    old, new, shared_dir, tmp_path, run_cli, sql, monkeypatch
):
    text = (shared_dir / "fixtures" / "runs" / "worked_example.json").read_text()
    assert old in text
    path = tmp_path / "variant.json"
    path.write_text(text.replace(old, new, 1))
    by_sql, by_python = ingest_both(path, tmp_path, run_cli, sql, monkeypatch)
    assert by_sql == by_python


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('"token_msp": 0.5', '"token_msp": 0.5,}', "invalid JSON at line"),
        ('"token_msp": 0.5', '"token_msp": NaN', "token_msp = NaN is not valid strict JSON"),
        ('"token_msp": 0.5', '"token_msp": 1e400', "token_msp = inf does not fit a finite double"),
        ('"NoInterest": 2', '"NoInterest": 2, "NoInterest": 7', "predicted_items.NoInterest = 7 is not"),
    ],
)
def test_what_duckdb_reads_and_python_refuses_is_refused(
    old, new, message, shared_dir, tmp_path, run_cli, sql_reader
):
    text = (shared_dir / "fixtures" / "runs" / "worked_example.json").read_text()
    path = tmp_path / "variant.json"
    path.write_text(text.replace(old, new, 1))
    result = run_cli(["ingest", path, "--warehouse", tmp_path / "w.duckdb"])
    assert result.exit_code == 1
    assert message in result.stderr


@pytest.mark.parametrize("case", sorted(WORKED_VARIANTS))
def test_bad_variant_gives_the_same_message_on_the_sql_path(
    case, worked, seeded, run_cli, tmp_path, take_snapshot, sql_reader
):
    edit, message = WORKED_VARIANTS[case]
    doc: Any = copy.deepcopy(worked)
    if edit is None:
        doc = [doc]
    else:
        edit(doc)
    path = tmp_path / f"{case}.json"
    path.write_text(json.dumps(doc))
    before = take_snapshot(seeded)
    result = run_cli(["ingest", path, "--warehouse", seeded])
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"error: {path}: {message}\n")
    assert take_snapshot(seeded) == before


@pytest.mark.parametrize("name", sorted(BAD_FILE_ERRORS))
def test_bad_fixture_gives_the_same_message_on_the_sql_path(name, shared_dir, seeded, run_cli, sql_reader):
    path = shared_dir / "fixtures" / "bad" / name
    result = run_cli(["ingest", path, "--warehouse", seeded])
    assert (result.exit_code, result.stderr) == (1, f"error: {path}: {BAD_FILE_ERRORS[name]}\n")


def test_a_failed_sql_read_leaves_the_callers_transaction_usable(shared_dir, tmp_path, sql_reader):
    """evaluate ingests inside its own transaction: a DuckDB parse error must not abort it."""
    con = duckdb.connect(str(tmp_path / "t.duckdb"))
    con.execute("CREATE TABLE t (x INTEGER)")
    con.execute("BEGIN TRANSACTION")
    con.execute("INSERT INTO t VALUES (1)")
    bad = tmp_path / "dup.json"
    text = (shared_dir / "fixtures" / "runs" / "worked_example.json").read_text()
    bad.write_text(text.replace('"success": true', '"success": true, "success": true', 1))
    assert fast.stage(con, bad, bad.read_bytes()) is None
    con.execute("INSERT INTO t VALUES (2)")
    con.execute("COMMIT")
    assert con.execute("SELECT sum(x) FROM t").fetchall() == [(3,)]
