"""`riskcov publish` and the auto-publish of writing commands: the BI snapshot's content, its
atomic swap under a reader process, the opt-outs and the failures that leave it untouched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from docs_support import sql_blocks

from riskcov.warehouse.files import printable

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = REPO_ROOT / "examples" / "example_run.json"
ON = {"RISKCOV_PUBLISH": "1"}
EXAMPLE_SUMMARY = "metrics 52 rows, rc_points 4844 rows"
# a BI client: counts runs, evaluations and metrics, again on the same connection after a line
# on stdin, then once more on a new connection
READER = (
    "import sys, duckdb\n"
    "COUNTS = 'SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM evaluations), "
    "(SELECT count(*) FROM metrics)'\n"
    "con = duckdb.connect(sys.argv[1], read_only=True)\n"
    "print(con.execute(COUNTS).fetchone(), flush=True)\n"
    "sys.stdin.readline()\n"
    "print(con.execute(COUNTS).fetchone(), flush=True)\n"
    "con.close()\n"
    "con = duckdb.connect(sys.argv[1], read_only=True)\n"
    "print(con.execute(COUNTS).fetchone(), flush=True)\n"
)


@pytest.fixture
def example_warehouse(warehouse_path, run_cli):
    assert run_cli(["ingest", EXAMPLE, "--warehouse", warehouse_path]).exit_code == 0
    return warehouse_path


def names(sql, path, kind):
    q = {
        "tables": "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()",
        "views": "SELECT schema_name || '.' || view_name FROM duckdb_views() "
        "WHERE database_name = current_database() AND NOT internal",
    }[kind]
    return sorted(r[0] for r in sql(path, q))


def test_publish_writes_the_snapshot_beside_the_warehouse(example_warehouse, run_cli, sql):
    result = run_cli(["publish", "--warehouse", example_warehouse])
    snap = example_warehouse.parent / "riskcov-bi.duckdb"
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        f"published {snap}: {EXAMPLE_SUMMARY}\n",
        "",
    )
    assert sorted(os.listdir(example_warehouse.parent)) == ["riskcov-bi.duckdb", "w.duckdb"]
    storage = (
        "SELECT tags['storage_version'] FROM duckdb_databases() WHERE database_name = current_database()"
    )
    assert sql(snap, storage) == [("v1.4.0+",)]


def test_snapshot_copies_every_table_and_materialises_the_metric_views(example_warehouse, run_cli, sql):
    evaluated = run_cli(
        [
            *("evaluate", "--input", "synthetic-p41-s0-zero_shot-few_shot", "--mode", "few_shot"),
            *("--bootstrap-resamples", "0", "--json", "--warehouse", example_warehouse),
        ]
    )
    assert evaluated.exit_code == 0
    assert run_cli(["publish", "--warehouse", example_warehouse]).exit_code == 0
    snap = example_warehouse.parent / "riskcov-bi.duckdb"
    warehouse_tables = names(sql, example_warehouse, "tables")
    assert "metrics" in warehouse_tables and "rc_points" in warehouse_tables  # kept by the warehouse
    assert names(sql, snap, "tables") == warehouse_tables
    for table in warehouse_tables:
        if table != "warehouse_meta":  # the snapshot adds published_from / published_at
            q = f"SELECT * FROM {table} ORDER BY ALL"
            assert sql(snap, q) == sql(example_warehouse, q), table
    assert len(sql(snap, "FROM metrics")) == 52
    meta = "SELECT value FROM warehouse_meta WHERE key = 'published_from'"
    assert sql(snap, meta) == [(str(example_warehouse.resolve()),)]


def test_every_snapshot_view_reads_the_same_rows_read_only(example_warehouse, run_cli, sql):
    assert run_cli(["publish", "--warehouse", example_warehouse]).exit_code == 0
    snap = example_warehouse.parent / "riskcov-bi.duckdb"
    assert names(sql, snap, "views") == names(sql, example_warehouse, "views")
    for view in names(sql, snap, "views"):
        q = f"SELECT * FROM {view} ORDER BY ALL"
        assert sql(snap, q) == sql(example_warehouse, q), view
    definitions = "SELECT sql FROM duckdb_views() WHERE view_name = 'v_metrics'"
    assert sql(snap, definitions) == [("CREATE VIEW v_metrics AS SELECT * FROM metrics;",)]
    definitions = "SELECT sql FROM duckdb_views() WHERE view_name = 'v_rc_points'"
    assert sql(snap, definitions)[0][0].endswith(" FROM rc_points;")


def test_documented_queries_give_the_warehouse_rows_on_the_snapshot(example_warehouse, run_cli, sql):
    paired = ["--input", EXAMPLE, "--mode", "zero_shot", "--input", EXAMPLE, "--mode", "few_shot"]
    evaluated = run_cli(
        ["evaluate", *paired, "--bootstrap-resamples", "20", "--json", "--warehouse", example_warehouse],
        env=ON,
    )
    assert evaluated.exit_code == 0
    snap = example_warehouse.parent / "riskcov-bi.duckdb"
    queries = sql_blocks()  # the README's, then the SQL cookbook's and risk control's
    rows = [sql(snap, q) for q in queries]
    assert rows == [sql(example_warehouse, q) for q in queries]
    assert [len(r) for r in rows] == [1, 1, 2, 16, 0]  # deltas of llm and total_evidence; no risk-control


def test_writing_commands_publish_unless_told_not_to(tmp_path, run_cli):
    on = tmp_path / "on" / "w.duckdb"
    result = run_cli(["ingest", EXAMPLE, "--warehouse", on], env=ON)
    assert (result.exit_code, result.stderr) == (
        0,
        f"published {on.parent / 'riskcov-bi.duckdb'}: {EXAMPLE_SUMMARY}\n",
    )
    moved = tmp_path / "bi" / "snap.duckdb"
    result = run_cli(["migrate", "--warehouse", on], env={**ON, "RISKCOV_BI_PATH": str(moved)})
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "up to date\n",
        f"published {moved}: {EXAMPLE_SUMMARY}\n",
    )
    for name, args, env in [
        ("flag", ["--no-publish"], ON),
        ("env", [], {"RISKCOV_PUBLISH": "0"}),
    ]:
        off = tmp_path / name / "w.duckdb"
        result = run_cli(["ingest", EXAMPLE, "--warehouse", off, *args], env=env)
        assert (result.exit_code, result.stderr) == (0, "")
        assert sorted(os.listdir(off.parent)) == ["w.duckdb"]
    listed = run_cli(["migrate", "--list", "--warehouse", tmp_path / "env" / "w.duckdb"], env=ON)
    assert (listed.exit_code, listed.stderr) == (0, "")
    assert sorted(os.listdir(tmp_path / "env")) == ["w.duckdb"]


def test_an_unchanged_ingest_publishes_nothing(example_warehouse, run_cli):
    result = run_cli(["ingest", EXAMPLE, "--warehouse", example_warehouse], env=ON)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.startswith(f"unchanged {EXAMPLE}: ")
    assert not (example_warehouse.parent / "riskcov-bi.duckdb").exists()


def test_a_batch_with_a_bad_file_publishes_the_good_ones(tmp_path, run_cli):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    result = run_cli(["ingest", EXAMPLE, bad, "--warehouse", tmp_path / "w.duckdb"], env=ON)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[1:] == [
        f"published {tmp_path / 'riskcov-bi.duckdb'}: {EXAMPLE_SUMMARY}"
    ]


def test_a_bad_ingest_publishes_nothing_new_but_still_fails_with_its_own_line(tmp_path, run_cli):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    result = run_cli(["ingest", bad, "--warehouse", tmp_path / "w.duckdb"], env=ON)
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: {bad}: truncated JSON: the file ends inside an open object, list or string\n",
    )
    assert not (tmp_path / "riskcov-bi.duckdb").exists()


def test_a_command_that_fails_publishes_nothing(tmp_path, run_cli):
    result = run_cli(["evaluate", "--input", "nope", "--warehouse", tmp_path / "w.duckdb"], env=ON)
    assert (result.exit_code, result.stderr) == (
        1,
        "error: --input nope: no such file, and no run with that run_id in the warehouse\n",
    )
    assert sorted(os.listdir(tmp_path)) == ["w.duckdb"]


@pytest.mark.parametrize("raised", [KeyboardInterrupt(), RuntimeError("Query interrupted")])
def test_ctrl_c_while_publishing_says_the_warehouse_kept_the_work(
    raised, tmp_path, run_cli, sql, monkeypatch
):
    def interrupted(*args):
        raise raised  # Python's, or DuckDB's own answer to the signal during a query

    monkeypatch.setattr("riskcov.warehouse.publish.publish_snapshot", interrupted)
    result = run_cli(["ingest", EXAMPLE, "--warehouse", tmp_path / "w.duckdb"], env=ON)
    assert (result.exit_code, result.stderr) == (
        130,
        "error: interrupted; the warehouse is updated but the BI snapshot is not (riskcov publish)\n",
    )
    assert sql(tmp_path / "w.duckdb", "SELECT run_id FROM runs") == [("synthetic-p41-s0-zero_shot-few_shot",)]
    assert sorted(os.listdir(tmp_path)) == ["w.duckdb"]


def test_publish_refuses_to_overwrite_the_warehouse(example_warehouse, run_cli):
    result = run_cli(["publish", "--to", example_warehouse, "--warehouse", example_warehouse])
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"error: --to {example_warehouse}: that is the warehouse itself; give another path\n",
    )


def test_a_failed_publish_keeps_the_old_snapshot_and_leaves_no_temporary_file(
    example_warehouse, run_cli, monkeypatch
):
    assert run_cli(["publish", "--warehouse", example_warehouse]).exit_code == 0
    snap = example_warehouse.parent / "riskcov-bi.duckdb"
    before = snap.read_bytes()

    def full_disk(*args):
        raise duckdb.IOException("could not write: No space left on device")

    monkeypatch.setattr("riskcov.warehouse.publish._finish", full_disk)
    result = run_cli(["publish", "--warehouse", example_warehouse])
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        f"error: publish {snap}: could not write: No space left on device\n",
    )
    assert snap.read_bytes() == before
    assert sorted(os.listdir(example_warehouse.parent)) == ["riskcov-bi.duckdb", "w.duckdb"]
    samples = REPO_ROOT / "examples" / "selective_samples.parquet"  # a new run: a snapshot is due
    result = run_cli(["ingest", samples, "--warehouse", example_warehouse], env=ON)
    assert (result.exit_code, result.stderr) == (
        5,
        "error: the warehouse is updated but the BI snapshot is not: "
        f"publish {snap}: could not write: No space left on device\n",
    )


def test_publish_onto_a_folder_is_one_line_and_cleans_up(example_warehouse, run_cli):
    folder = example_warehouse.parent / "taken"
    folder.mkdir()
    result = run_cli(["publish", "--to", folder, "--warehouse", example_warehouse])
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: --to {folder}: is a folder, not a DuckDB database file\n",
    )
    assert sorted(os.listdir(example_warehouse.parent)) == ["taken", "w.duckdb"]


def test_a_reader_keeps_its_snapshot_while_ingest_and_evaluate_publish(example_warehouse, run_cli):
    assert run_cli(["publish", "--warehouse", example_warehouse]).exit_code == 0
    snap = example_warehouse.parent / "riskcov-bi.duckdb"
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(snap)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert reader.stdout is not None and reader.stdin is not None
        assert reader.stdout.readline() == "(1, 0, 52)\n"
        preds = example_warehouse.parent / "preds.csv"
        preds.write_text("sample_id,confidence,correct\na,0.9,1\nb,0.8,1\nc,0.4,0\nd,0.3,1\n")
        ingested = run_cli(["ingest", preds, "--warehouse", example_warehouse], env=ON)
        assert (ingested.exit_code, ingested.stderr) == (
            0,
            f"published {snap}: metrics 53 rows, rc_points 4848 rows\n",
        )
        evaluated = run_cli(
            [
                *("evaluate", "--input", "preds", "--bootstrap-resamples", "0", "--json"),
                *("--warehouse", example_warehouse),
            ],
            env=ON,
        )
        assert (evaluated.exit_code, evaluated.stderr) == (
            0,
            f"published {snap}: metrics 53 rows, rc_points 4848 rows\n",
        )
        reader.stdin.write("\n")
        reader.stdin.flush()
        assert reader.stdout.readline() == "(1, 0, 52)\n"  # the old file, still open
        assert reader.stdout.readline() == "(2, 1, 53)\n"  # reconnected: the new one
        assert reader.wait(timeout=60) == 0
    finally:
        reader.kill()
        reader.wait()


# another application's database, held open for writing until killed
HOLD_APP = (
    "import sys, time, duckdb\n"
    "con = duckdb.connect(sys.argv[1])\n"
    "con.execute('CREATE TABLE precious AS SELECT 42 AS answer')\n"
    "con.execute('CHECKPOINT')\n"
    "print('ready', flush=True)\n"
    "time.sleep(120)\n"
)


def test_publish_never_replaces_a_database_another_process_holds_for_writing(
    example_warehouse, run_cli, tmp_path
):
    """The lock was taken for a riskcov snapshot's: the other application's file was renamed over."""
    app = tmp_path / "app.duckdb"
    proc = subprocess.Popen([sys.executable, "-c", HOLD_APP, str(app)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        r = run_cli(["publish", "--to", app, "--warehouse", example_warehouse])
        cmd = Path(f"/proc/{proc.pid}/cmdline").read_bytes().replace(b"\0", b" ").strip().decode()
    finally:
        proc.kill()
        proc.wait()
    assert (r.exit_code, r.stdout) == (3, "")
    assert r.stderr == (
        f"error: --to {app}: the file is held for writing by process {proc.pid} ({printable(cmd[:120])}); "
        "riskcov replaces only a snapshot it can read: try again when it is released (BI tools "
        "should open the snapshot read-only)\n"
    )
    con = duckdb.connect(str(app), read_only=True)
    try:
        assert con.execute("SELECT * FROM precious").fetchall() == [(42,)]
    finally:
        con.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.duckdb", "w.duckdb"]


def test_publish_to_a_folder_that_cannot_be_made_is_one_line_exit_2(
    example_warehouse, run_cli, unwritable_folder
):
    """mkdir's PermissionError was an internal error (exit 70)."""
    target = unwritable_folder / "sub" / "bi.duckdb"
    r = run_cli(["publish", "--to", target, "--warehouse", example_warehouse])
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr.startswith(f"error: --to {target}: cannot make its folder: ")
    assert r.stderr.count("\n") == 1 and "internal error" not in r.stderr


@pytest.mark.parametrize("command", [["ingest", "CSV"], ["migrate"], ["csf", "add", "x", "token_msp"]])
def test_a_writing_command_on_the_snapshot_is_refused(command, example_warehouse, run_cli, tmp_path, sql):
    """`--warehouse riskcov-bi.duckdb ingest` stored the run in the snapshot, where the next
    publish wiped it (and the command's own publish said 'that is the warehouse itself', exit 5)."""
    assert run_cli(["publish", "--warehouse", example_warehouse]).exit_code == 0
    snapshot = example_warehouse.parent / "riskcov-bi.duckdb"
    before = sql(snapshot, "SELECT run_id FROM runs ORDER BY run_id")
    csv = tmp_path / "m.csv"
    csv.write_text("sample_id,confidence,correct\n1,0.9,1\n2,0.4,0\n")
    args = [str(csv) if a == "CSV" else a for a in command]
    r = run_cli([*args, "--warehouse", snapshot], env=ON)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        f"error: warehouse {snapshot.resolve()}: the file is a BI snapshot published from "
        f"{example_warehouse.resolve()}; the next publish replaces it, so riskcov writes only to the "
        f"warehouse: give --warehouse {example_warehouse.resolve()}\n"
    )
    assert sql(snapshot, "SELECT run_id FROM runs ORDER BY run_id") == before
    # reading the snapshot stays possible
    listed = run_cli(["runs", "--json", "--warehouse", snapshot])
    assert listed.exit_code == 0, listed.stderr
