"""Continuous losses (docs/formats.md): every number is independent of the file's row order, its format
and DuckDB's thread count, and the point estimate agrees with an exact rational oracle."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import duckdb
import pytest

from riskcov.evaluation import run as evaluate
from riskcov.evaluation.prepared_warehouse import open_warehouse

COLUMNS = "sample_id, cluster, confidence_a, confidence_b, loss, abstained"
Row = tuple[str, int, float, float, float, bool]


def _rows() -> list[Row]:
    """150 samples in 40 clusters: confidence_a has 12 values (ties across and within clusters),
    confidence_b 40; losses mix 0.1, 0.37, full-precision doubles, tiny and large ones and
    integers; one sample in ten abstains."""
    rng = random.Random(2024)
    rows: list[Row] = []
    for i in range(150):
        if i % 10 == 9:  # a tie within a cluster: the previous sample's cluster and confidence
            cluster, conf_a = rows[-1][1], rows[-1][2]
        else:
            cluster, conf_a = rng.randrange(40), rng.randrange(12) / 11
        loss = [0.1, 0.37, rng.random(), rng.random() * 1e-9, 1234.5678 * rng.random(), 2.0][i % 6]
        rows.append((f"s{i:03d}", cluster, conf_a, rng.randrange(40) / 39, loss, rng.random() < 0.1))
    return rows


def _oracle(rows: list[Row], column: int) -> dict[str, Any]:
    """docs/metrics.md's plateau-trapezoid AURC and AUGRC and the curve's selective risks, in Fractions."""
    n = len(rows)
    plateaus: dict[float, list[Fraction]] = {}
    for row in rows:
        if not row[5]:
            plateaus.setdefault(row[column], []).append(Fraction(row[4]))
    k, loss = 0, Fraction(0)
    c_prev, r_prev, g_prev = Fraction(0), None, Fraction(0)
    aurc, augrc, risks = Fraction(0), Fraction(0), []
    for conf in sorted(plateaus, reverse=True):
        k += len(plateaus[conf])
        loss += sum(plateaus[conf])
        c, r, g = Fraction(k, n), loss / k, loss / n
        r0 = r if r_prev is None else r_prev
        aurc += (c - c_prev) * (r0 + r) / 2
        augrc += (c - c_prev) * (g_prev + g) / 2
        c_prev, r_prev, g_prev = c, r, g
        risks.append(r)
    return {"aurc_full": aurc, "augrc_full": augrc, "selective_risk": risks}


def _write(rows: list[Row], path: Path, fmt: str, order: list[int]) -> None:
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE t (o INTEGER, sample_id VARCHAR, cluster BIGINT, confidence_a DOUBLE, "
        "confidence_b DOUBLE, loss DOUBLE, abstained BOOLEAN)"
    )
    con.executemany(
        "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)", [(o, *rows[i]) for o, i in enumerate(order)]
    )
    con.execute(f"COPY (SELECT {COLUMNS} FROM t ORDER BY o) TO '{path}' (FORMAT {fmt})")
    con.close()


def _comparable(art: dict[str, Any]) -> str:
    art = dict(art)
    art.pop("created_at")
    for entry in art["inputs"]:
        entry.pop("sha256")
    return json.dumps(art, indent=2)


OPTIONS = ["--confidence", "all", "--bootstrap-resamples", "200", "--seed", "3"]


def test_row_order_format_and_threads_do_not_change_a_bit(tmp_path, run_cli):
    rows = _rows()
    shuffled = list(range(len(rows)))
    random.Random(7).shuffle(shuffled)
    orders = {"csv": list(range(len(rows))), "parquet": shuffled, "json": shuffled[::-1]}
    texts = []
    for fmt, suffix in (("csv", "csv"), ("parquet", "parquet"), ("json", "jsonl")):
        folder = tmp_path / suffix
        folder.mkdir()
        _write(rows, folder / f"run.{suffix}", fmt, orders[fmt])
        wh = folder / "w.duckdb"
        assert run_cli(["ingest", folder / f"run.{suffix}", "--warehouse", wh]).exit_code == 0
        r = run_cli(["evaluate", "--input", "run", "--warehouse", wh, *OPTIONS, "--json"])
        assert (r.exit_code, r.stderr) == (0, ""), r.stderr
        texts.append(_comparable(json.loads(r.stdout)))
    assert texts[0] == texts[1] == texts[2]
    for threads in (1, 3):
        with open_warehouse(tmp_path / "parquet" / "w.duckdb") as con:
            con.execute(f"SET threads = {threads}")
            result = evaluate.run(
                con,
                evaluate.Options(inputs=["run"], confidence="all", bootstrap_resamples=200, seed=3),
            )
        assert _comparable(json.loads(json.dumps(result.artifact))) == texts[0], threads
    art = json.loads(texts[0])
    for name, column in (("a", 2), ("b", 3)):
        m, exact = art["confidence_variants"][name], _oracle(rows, column)
        for key in ("aurc_full", "augrc_full"):
            assert m[key] == pytest.approx(float(exact[key]), rel=1e-15, abs=0), (name, key)
        assert m["curve"]["selective_risk"] == pytest.approx(
            [float(r) for r in exact["selective_risk"]], rel=1e-15, abs=0
        ), name
