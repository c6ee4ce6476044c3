"""Per-sample column names equal but for case (`Site` beside `site`): DuckDB's JSON and Parquet
readers, and its scan of in-memory data, take them for one name and rename the later one
`site_1`, so its values were stored under a name the file does not have (a JSON file's all
NULL). Such data is refused with one line; a CSV (whose header riskcov reads itself) keeps both."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

import riskcov
from riskcov.errors import InputError

ROWS = [
    {"sample_id": f"s{i}", "confidence": i / 8, "correct": i % 2, "Site": "AB"[i % 2], "site": "CDE"[i % 3]}
    for i in range(8)
]
CLASH = "columns Site and site differ only in case, which DuckDB reads as one name: rename one"


def _refused(run_cli, take_snapshot, wh: Path, path: Path) -> None:
    first = wh.parent / "first.csv"
    first.write_text("sample_id,confidence,correct\na,0.5,1\nb,0.2,0\n")
    _stored(run_cli, wh, first)
    before = take_snapshot(wh)
    r = run_cli(["ingest", path, "--warehouse", wh])
    assert (r.exit_code, r.stdout, r.crashed) == (1, "", False)
    assert r.stderr == f"error: {path}: {CLASH}\n"
    assert take_snapshot(wh) == before


def _attributes(sql, wh: Path) -> list[tuple[object, ...]]:
    return sorted(sql(wh, "SELECT name, sample_index, value FROM sample_attributes"))


def _stored(run_cli, wh: Path, path: Path) -> None:
    assert run_cli(["ingest", path, "--warehouse", wh]).exit_code == 0


def test_jsonl_names_equal_but_for_case_are_refused(tmp_path, run_cli, take_snapshot):
    path = tmp_path / "clash.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    _refused(run_cli, take_snapshot, tmp_path / "w.duckdb", path)


def test_parquet_names_equal_but_for_case_are_refused(tmp_path, run_cli, take_snapshot):
    # DuckDB writes no such file, so its footer's name `sitQ` is patched to `site` (same length)
    path = tmp_path / "clash.parquet"
    con = duckdb.connect()
    con.execute(
        "COPY (SELECT 's' || i AS sample_id, i / 8 AS confidence, i % 2 AS correct, 'A' AS \"Site\", "
        f"'C' AS \"sitQ\" FROM range(8) r(i)) TO '{path}'"
    )
    path.write_bytes(path.read_bytes().replace(b"sitQ", b"site"))
    assert [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM '{path}'").fetchall()][-2:] == [
        "Site",
        "site_1",
    ]
    _refused(run_cli, take_snapshot, tmp_path / "w.duckdb", path)


def test_in_memory_names_equal_but_for_case_are_refused():
    data = {k: [r[k] for r in ROWS] for k in ROWS[0]}
    with pytest.raises(InputError, match=f"^data: {CLASH}$"):
        riskcov.evaluate(data, resamples=0)


def test_a_real_name_1_column_is_kept(tmp_path, run_cli, sql):
    # `site` beside `site_1` looks like DuckDB's rename, but the file has both names
    wh = tmp_path / "w.duckdb"
    path = tmp_path / "ok.jsonl"
    rows = [
        {"sample_id": f"s{i}", "confidence": i / 4, "correct": i % 2, "Site": str(i), "site_1": "x"}
        for i in range(4)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    _stored(run_cli, wh, path)
    assert _attributes(sql, wh) == [
        *(("Site", i, str(i)) for i in range(4)),
        *(("site_1", i, "x") for i in range(4)),
    ]


def test_a_csv_keeps_both_names(tmp_path, run_cli, sql):
    wh = tmp_path / "w.duckdb"
    path = tmp_path / "both.csv"
    path.write_text(
        "sample_id,confidence,correct,Site,site\n"
        + "".join(
            f"{r['sample_id']},{r['confidence']},{r['correct']},{r['Site']},{r['site']}\n" for r in ROWS
        )
    )
    _stored(run_cli, wh, path)
    assert _attributes(sql, wh) == [
        *(("Site", i, "AB"[i % 2]) for i in range(8)),
        *(("site", i, "CDE"[i % 3]) for i in range(8)),
    ]


def test_a_name_given_twice_is_refused_like_a_csvs(tmp_path, run_cli, take_snapshot):
    # DuckDB renamed the second `confidence` of a Parquet file or a frame confidence_1, which
    # was then evaluated as a CSF named 1 beside confidence, with exit 0; a CSV says so
    import pyarrow as pa
    import pyarrow.parquet as pq

    values = [["a", "b", "c"], [0.9, 0.5, 0.2], [1, 0, 1], [0.1, 0.2, 0.3]]
    table = pa.Table.from_arrays(
        [pa.array(v) for v in values], names=["sample_id", "confidence", "correct", "confidence"]
    )
    path = tmp_path / "twice.parquet"
    pq.write_table(table, path)
    csv = tmp_path / "twice.csv"
    csv.write_text("sample_id,confidence,correct,confidence\na,0.9,1,0.1\nb,0.5,0,0.2\nc,0.2,1,0.3\n")
    wh = tmp_path / "w.duckdb"
    first = wh.parent / "first.csv"
    first.write_text("sample_id,confidence,correct\na,0.5,1\nb,0.2,0\n")
    _stored(run_cli, wh, first)
    before = take_snapshot(wh)
    for given in (path, csv):
        r = run_cli(["ingest", given, "--warehouse", wh])
        twice = f"error: {given}: column confidence appears twice\n"
        assert (r.exit_code, r.stdout, r.stderr) == (1, "", twice)
    assert take_snapshot(wh) == before
    for data in (table.drop_columns(["sample_id"]), table.to_pandas().drop(columns="sample_id")):
        with pytest.raises(InputError) as raised:
            riskcov.evaluate(data, resamples=0)
        assert str(raised.value) == "data: column confidence appears twice"
