"""The Python API leaves the caller's warehouse as it found it between calls.

A user CSF turns DuckDB's file access off for the database instance, one-way
(docs/calibration.md). In the CLI that is the command's last use of the warehouse; through the
Python API a `with Warehouse(path)` block goes on: its later file reads and the BI snapshot must
still work (they failed as bad data: "unreadable CSV ... disabled by configuration"), and an
in-memory Warehouse, which cannot be opened again, says why it reads no more files."""

from __future__ import annotations

import pytest

import riskcov
from riskcov.errors import InputError, UsageError
from riskcov.metrics import stream_plan

DATA = {"confidence": [0.9, 0.8, 0.6, 0.3], "confidence_msp": [0.7, 0.9, 0.2, 0.4], "correct": [1, 0, 1, 0]}
CSV = "sample_id,confidence,correct\n1,0.9,1\n2,0.7,0\n3,0.4,1\n"


def _setting(wh: riskcov.Warehouse) -> list[tuple[object, ...]]:
    return wh.sql("SELECT current_setting('enable_external_access')").fetchall()


@pytest.mark.parametrize("expression", ["sql:msp * confidence", "sql:ln(msp - 0.2)"])
def test_a_file_warehouse_reads_files_after_a_user_csf(tmp_path, expression):
    csv = tmp_path / "later.csv"
    csv.write_text(CSV)
    with riskcov.Warehouse(tmp_path / "w.duckdb") as wh:
        run = wh.ingest(DATA, run_id="first")
        if expression.endswith("0.2)"):  # ln(0) of sample 3: the evaluation fails
            with pytest.raises(InputError, match="cannot be computed"):
                wh.evaluate(run, confidence=expression, resamples=0)
        else:
            ev = wh.evaluate(run, confidence=expression, resamples=0)
            assert ev.evaluation_id is not None and len(ev.artifact["confidence_variants"]) == 1
        assert _setting(wh) == [(True,)]
        assert wh.ingest(csv) == "later"
        assert wh.publish() == tmp_path / "riskcov-bi.duckdb"
        assert [r["run_id"] for r in wh.runs()] == ["first", "later"]


def test_an_in_memory_warehouse_says_it_reads_no_more_files(tmp_path):
    csv = tmp_path / "later.csv"
    csv.write_text(CSV)
    with riskcov.Warehouse() as wh:
        run = wh.ingest(DATA, run_id="first")
        wh.evaluate(run, confidence="sql:msp * confidence", resamples=0)
        with pytest.raises(UsageError) as raised:
            wh.ingest(csv)
        assert str(raised.value) == (
            "this in-memory Warehouse ran a user CSF, after which DuckDB reads no files in it "
            "(docs/calibration.md): ingest files before, or use Warehouse(path)"
        )
        with pytest.raises(UsageError, match="ran a user CSF"):
            wh.evaluate(str(csv), resamples=0)
        assert wh.ingest({**DATA, "correct": [0, 0, 1, 1]}, run_id="second") == "second"  # in memory: fine


def _state(wh: riskcov.Warehouse) -> tuple[object, ...]:
    return (
        wh.sql("SELECT current_setting('preserve_insertion_order')").fetchall(),
        wh.sql("SELECT table_name FROM duckdb_tables() WHERE temporary ORDER BY 1").fetchall(),
        wh.sql("SELECT view_name FROM duckdb_views() WHERE temporary AND NOT internal ORDER BY 1").fetchall(),
    )


@pytest.mark.parametrize("fresh", [True, False], ids=["file-ingested-on-the-fly", "ingested-run"])
def test_an_evaluation_leaves_no_temp_tables_and_the_insertion_order_setting(tmp_path, monkeypatch, fresh):
    # the streamed replicates (pinning preserve_insertion_order) on small data; a file input
    # ingested on the fly runs the replicates on the caller's own connection
    monkeypatch.setattr(stream_plan, "STREAM_MIN_CELLS", 0)
    csv = tmp_path / "run.csv"
    csv.write_text(
        "sample_id,confidence,correct\n" + "".join(f"{i},{i % 7 / 7},{i % 3 > 0:d}\n" for i in range(1, 60))
    )
    with riskcov.Warehouse() as wh:
        run = str(csv) if fresh else wh.ingest(csv)
        wh.sql("CREATE TEMP TABLE mine AS SELECT 1 AS x")
        wh.sql("SET preserve_insertion_order = false")
        before = _state(wh)
        first = wh.evaluate(run, resamples=30)
        assert _state(wh) == before == ([(False,)], [("mine",)], [])
        with pytest.raises(InputError, match="cannot be computed"):  # ln(0) mid-evaluation
            wh.evaluate("run" if fresh else run, resamples=30, confidence="sql:ln(confidence)")
        assert _state(wh) == before
        again = wh.evaluate("run" if fresh else run, resamples=30)
        assert _state(wh) == before
    assert again.artifact["confidence_variants"] == first.artifact["confidence_variants"]


def test_an_unreadable_input_ingested_on_the_fly_is_bad_data_not_a_bug(tmp_path, run_cli):
    # a JSON lines file with a duplicate key: DuckDB's read error aborts the evaluation's
    # transaction, and the staging's cleanup statements used to replace the error
    bad = tmp_path / "dup.jsonl"
    bad.write_text('{"sample_id": 1, "confidence": 0.9, "correct": 1, "confidence": 0.1}\n')
    why = (
        f'{bad}: unreadable JSON lines: JSON transform error in file "{bad}", in line 1: '
        'Object {"sample_id":1,"confidence":0.9,"correct":1,"confi... has duplicate key "confidence"'
    )
    wh = tmp_path / "w.duckdb"
    args = ["evaluate", "--input", bad, "--bootstrap-resamples", "0", "--warehouse", wh, "--no-publish"]
    done = run_cli(args)
    assert (done.exit_code, done.stderr) == (1, f"error: {why}\n")
    with pytest.raises(InputError) as raised:
        riskcov.evaluate(bad, resamples=0)
    assert str(raised.value) == why


def test_only_the_library_puts_its_callers_connection_back(run_cli, tmp_path, monkeypatch):
    # the CLI's connection closes with the command: listing its TEMP tables twice and setting
    # preserve_insertion_order back would be work for nothing (docs/performance.md, start-up)
    from riskcov.evaluation import run

    listed: list[int] = []
    temps = run.temps
    monkeypatch.setattr(run, "temps", lambda con: listed.append(1) or temps(con))
    with riskcov.Warehouse(tmp_path / "api.duckdb") as wh:
        wh.evaluate(wh.ingest(DATA, run_id="api"), resamples=0)
    assert listed == [1]  # before; drop_new_temps lists them again after
    args = ["--warehouse", tmp_path / "cli.duckdb", "evaluate", "--input", tmp_path / "d.csv"]
    (tmp_path / "d.csv").write_text(CSV)
    result = run_cli([*args, "--bootstrap-resamples", "0", "--output", tmp_path / "a.json", "--no-publish"])
    assert result.exit_code == 0, result.stderr
    assert listed == [1]
