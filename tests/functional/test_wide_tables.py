"""A per-sample table of more than 1,000 columns is refused in one line before it is staged
(docs/formats.md): 100,000 score columns of a one-row CSV ran for more than 10 minutes and
1.4 GB, and the time grows with the square of the columns."""

from __future__ import annotations

import json
import time

import duckdb
import pytest

import riskcov
from riskcov.errors import InputError

WIDTH = 1_001  # sample_id, correct and 999 scores: one column more than the cap
NAMES = ["sample_id", "correct", *(f"confidence_c{i}" for i in range(WIDTH - 2))]


def _write(tmp_path, fmt):
    path = tmp_path / f"wide.{fmt}"
    rows = [[j, 1, *([0.5] * (WIDTH - 2))] for j in range(2)]
    if fmt == "csv":
        path.write_text(",".join(NAMES) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(dict(zip(NAMES, r, strict=True))) + "\n" for r in rows))
    else:
        con = duckdb.connect()
        cols = ", ".join(f"{v} AS {n}" for n, v in zip(NAMES, rows[0], strict=True))
        con.execute(f"COPY (SELECT {cols}) TO '{path}' (FORMAT parquet)")
        con.close()
    return path


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_a_table_wider_than_the_cap_is_refused_at_once(fmt, tmp_path, run_cli, take_snapshot):
    wh = tmp_path / "w.duckdb"
    assert run_cli(["migrate", "--warehouse", wh]).exit_code == 0
    before = take_snapshot(wh)
    path = _write(tmp_path, fmt)
    start = time.monotonic()
    r = run_cli(["ingest", path, "--warehouse", wh])
    took = time.monotonic() - start
    assert (r.exit_code, r.stderr) == (
        1,
        f"error: {path}: 1,001 columns; a per-sample table takes at most 1,000 (docs/formats.md)\n",
    )
    assert take_snapshot(wh) == before
    assert took < 10  # staging it took 18 s and 0.8 GB


def test_in_memory_data_wider_than_the_cap_is_refused():
    data = {n: [0, 1] if n == "sample_id" else [1, 1] if n == "correct" else [0.5, 0.5] for n in NAMES}
    with pytest.raises(InputError, match=r"^data: 1,001 columns; a per-sample table takes at most 1,000"):
        riskcov.evaluate(data, resamples=0)


def test_a_json_lines_table_of_more_than_200_columns_reads_as_its_csv(tmp_path, run_cli, sql):
    """Past 200 keys DuckDB typed each line as one MAP: the file was refused as `unreadable JSON
    lines: json_read expected records`."""
    names = ["sample_id", "correct", *(f"confidence_c{i:03d}" for i in range(201))]
    rows = [[j, j % 2, *(round((j * 7 + i) % 10 / 10, 1) for i in range(201))] for j in range(4)]
    (tmp_path / "t.jsonl").write_text(
        "".join(json.dumps(dict(zip(names, r, strict=True))) + "\n" for r in rows)
    )
    (tmp_path / "t.csv").write_text(
        ",".join(names) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)
    )
    stored = []
    for name in ("t.jsonl", "t.csv"):
        wh = tmp_path / f"{name}.duckdb"
        r = run_cli(["ingest", tmp_path / name, "--warehouse", wh])
        assert (r.exit_code, r.stderr) == (0, ""), r.stderr
        stored.append(sql(wh, "SELECT csf, aurc_full FROM v_metrics ORDER BY csf"))
    assert stored[0] == stored[1]
    assert len(stored[0]) == 201
