"""A user CSF turns DuckDB's file access off for the database instance, one-way
(docs/calibration.md). In the CLI that is the command's last use of the warehouse; through the
Python API a `with Warehouse(path)` block goes on: its later file reads and the BI snapshot must
still work (they failed as bad data: "unreadable CSV ... disabled by configuration"), and an
in-memory Warehouse, which cannot be opened again, says why it reads no more files."""

from __future__ import annotations

import pytest

import riskcov
from riskcov.errors import InputError, UsageError

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
