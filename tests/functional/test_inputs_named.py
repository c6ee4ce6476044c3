"""The file named is the file read, and only a regular file is read (issue 24, items 1-4, 11, 14):
glob and `~` characters are not expanded, a FIFO or device is refused at once, a duplicate JSON
key or an experiment without participants is refused, and --warehouse / publish --to never
take over a file that is not theirs."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import duckdb
import pytest

from riskcov.formats.phq8_json.validate import ITEMS

CSV = "sample_id,confidence,correct\n"


def _csv(path: Path, rows: int, start: int = 0) -> Path:
    body = "".join(f"{start + i},{(i + 1) / (rows + 1)},{i % 2}\n" for i in range(rows))
    path.write_text(CSV + body)
    return path


def _stored(path: Path) -> list[tuple[str, str, int]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(
            "SELECT r.run_id, r.sha256, count(s.sample_index)::INT FROM runs r JOIN experiments e USING "
            "(run_id) LEFT JOIN samples s USING (experiment_id) GROUP BY ALL ORDER BY ALL"
        ).fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("name", ["a*.csv", "[ab].csv", "a?.csv", "{a,ab}.csv"])
def test_a_name_with_glob_characters_reads_that_file_alone(name, tmp_path, run_cli):
    named = _csv(tmp_path / name, 2)
    _csv(tmp_path / "ab.csv", 3, start=10)
    _csv(tmp_path / "a.csv", 5, start=20)
    wh = tmp_path / "w.duckdb"
    result = run_cli(["ingest", named, "--warehouse", wh])
    assert result.exit_code == 0, result.stderr
    sha = hashlib.sha256(named.read_bytes()).hexdigest()
    assert _stored(wh) == [(named.stem, sha, 2)]


def test_a_tilde_folder_is_the_folder_named(tmp_path, run_cli, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    _csv(home / "t.csv", 4)
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "~").mkdir()
    mine = _csv(tmp_path / "~" / "t.csv", 2)
    monkeypatch.chdir(tmp_path)
    result = run_cli(["ingest", "~/t.csv", "--warehouse", tmp_path / "w.duckdb"])
    assert result.exit_code == 0, result.stderr
    assert _stored(tmp_path / "w.duckdb") == [("t", hashlib.sha256(mine.read_bytes()).hexdigest(), 2)]


@pytest.mark.parametrize("suffix", [".csv", ".json", ".parquet"])
def test_a_fifo_is_refused_without_waiting(suffix, tmp_path, run_cli):
    fifo = tmp_path / f"f{suffix}"
    os.mkfifo(fifo)
    result = run_cli(["ingest", fifo, "--warehouse", tmp_path / "w.duckdb"])
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: {fifo}: is a named pipe (FIFO); riskcov reads regular files only\n",
    )


def test_dev_zero_is_refused(tmp_path, run_cli):
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    result = run_cli(["ingest", link, "--warehouse", tmp_path / "w.duckdb"])
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: {link}: is a character device; riskcov reads regular files only\n",
    )


def _run_json(pid_text: str, run_id: str = '"r1"') -> str:
    items = json.dumps(dict.fromkeys(ITEMS, 1))
    return (
        '{"run_metadata": {"run_id": ' + run_id + '}, "experiments": [{"provenance": {"mode": "m"},'
        ' "results": {"results": [{'
        + pid_text
        + ', "success": true, "predicted_items": '
        + items
        + ', "ground_truth_items": '
        + items
        + "}]}}]}"
    )


@pytest.mark.parametrize(
    ("doc", "key"),
    [
        (_run_json('"participant_id": 300, "participant_id": 999'), "participant_id"),
        (_run_json('"participant_id": 300', run_id='"a", "run_id": "b"'), "run_id"),
    ],
    ids=["participant_id", "run_id"],
)
def test_a_duplicate_json_key_is_refused_naming_it(doc, key, tmp_path, run_cli):
    path = tmp_path / "run.json"
    path.write_text(doc)
    result = run_cli(["ingest", path, "--warehouse", tmp_path / "w.duckdb"])
    assert result.exit_code == 1
    start = f'error: {path}: key "{key}" appears twice in the object at line 1 column '
    assert result.stderr.startswith(start)
    assert result.stderr.count("\n") == 1


def test_the_same_document_without_the_duplicate_is_accepted(tmp_path, run_cli):
    path = tmp_path / "run.json"
    path.write_text(_run_json('"participant_id": 300'))
    result = run_cli(["ingest", path, "--warehouse", tmp_path / "w.duckdb"])
    assert result.exit_code == 0, result.stderr


def test_an_experiment_without_participants_is_refused(tmp_path, run_cli):
    path = tmp_path / "run.json"
    path.write_text('{"run_metadata": {"run_id": "r"}, "experiments": [{"results": {"results": []}}]}')
    result = run_cli(["ingest", path, "--warehouse", tmp_path / "w.duckdb"])
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: {path}: experiment #0: results.results is empty; an experiment needs at least one "
        "participant\n",
    )


@pytest.mark.parametrize("name", ["example_run.json", "data.csv", "notes.txt"])
def test_warehouse_on_a_file_that_is_not_duckdb_is_refused(name, tmp_path, run_cli):
    other = tmp_path / name
    other.write_text("not a database\n")
    result = run_cli(["ingest", _csv(tmp_path / "m.csv", 2), "--warehouse", other])
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: --warehouse {other}: the file exists and is not a DuckDB database; riskcov neither "
        "uses nor overwrites it: give another path\n"
    )
    assert other.read_text() == "not a database\n"


@pytest.mark.parametrize("command", [["runs"], ["migrate"], ["ingest", "CSV"], ["publish"]])
def test_warehouse_on_another_applications_duckdb_file_is_refused_unchanged(command, tmp_path, run_cli, sql):
    """A DuckDB file with tables but no riskcov ledger was migrated: even `runs` filled it with
    riskcov's 24 tables and views."""
    other = tmp_path / "app.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE SCHEMA s; CREATE TABLE s.orders (id INT); CREATE VIEW v AS SELECT 1 AS one")
    con.close()
    args = [str(_csv(tmp_path / "m.csv", 2)) if a == "CSV" else a for a in command]
    result = run_cli([*args, "--warehouse", other])
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: warehouse {other}: the file is a DuckDB database of another application (main.v, "
        "s.orders; no riskcov schema_migrations); riskcov neither uses nor changes it: give another path\n",
    )
    names = "SELECT table_name FROM duckdb_tables() UNION ALL SELECT view_name FROM duckdb_views() "
    assert sql(other, names + "WHERE NOT internal ORDER BY 1") == [("orders",), ("v",)]


def test_an_empty_duckdb_file_becomes_a_warehouse(tmp_path, run_cli):
    empty = tmp_path / "new.duckdb"
    duckdb.connect(str(empty)).close()
    assert run_cli(["ingest", _csv(tmp_path / "m.csv", 2), "--warehouse", empty]).exit_code == 0
    assert _stored(empty)[0][::2] == ("m", 2)


def test_publish_never_overwrites_a_file_that_is_not_a_snapshot(tmp_path, run_cli):
    wh = tmp_path / "w.duckdb"
    assert run_cli(["ingest", _csv(tmp_path / "m.csv", 2), "--warehouse", wh]).exit_code == 0
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    other_db = tmp_path / "other.duckdb"
    duckdb.connect(str(other_db)).close()
    for target, why in (
        (notes, "the file exists and is not a DuckDB database; riskcov neither uses nor overwrites it"),
        (other_db, "the file is a DuckDB database but not a riskcov snapshot; riskcov will not overwrite it"),
    ):
        before = target.read_bytes()
        result = run_cli(["publish", "--to", target, "--warehouse", wh])
        assert (result.exit_code, result.stderr) == (2, f"error: --to {target}: {why}: give another path\n")
        assert target.read_bytes() == before
    snap = tmp_path / "bi.duckdb"
    assert run_cli(["publish", "--to", snap, "--warehouse", wh]).exit_code == 0
    assert run_cli(["publish", "--to", snap, "--warehouse", wh]).exit_code == 0  # its own snapshot


def test_a_nested_parquet_column_is_refused(tmp_path, run_cli):
    path = tmp_path / "n.parquet"
    con = duckdb.connect()
    con.execute(
        "COPY (SELECT 1 AS sample_id, [0.5, 0.2]::DOUBLE[] AS confidence, true AS correct) "
        f"TO '{path}' (FORMAT parquet)"
    )
    con.close()
    result = run_cli(["ingest", path, "--warehouse", tmp_path / "w.duckdb"])
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: {path}: column confidence is a nested DOUBLE[]; per-sample columns hold one value per row\n",
    )


@pytest.mark.fresh_warehouse  # the template's copy would make the folder itself
def test_a_warehouse_folder_that_cannot_be_made_is_one_line_exit_2(tmp_path, run_cli, unwritable_folder):
    """mkdir's PermissionError was an internal error (exit 70)."""
    wh = unwritable_folder / "sub" / "w.duckdb"
    r = run_cli(["ingest", _csv(tmp_path / "m.csv", 2), "--warehouse", wh])
    assert (r.exit_code, r.stdout) == (2, ""), r.stderr
    assert r.stderr.startswith(f"error: --warehouse {wh}: cannot make its folder: ")
    assert r.stderr.count("\n") == 1 and "internal error" not in r.stderr
