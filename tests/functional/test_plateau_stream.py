"""The "sort once" replicate path (metrics/plateau_stream.py) gives the chunked path's artifact
bit for bit: per-sample runs with ties, abstentions and clusters (both of its shapes: streamed
and summed per plateau), a paired PHQ-8 example, one and two worker connections; and it pins
the scan order it relies on."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest

from riskcov.evaluation import run as evaluate
from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.metrics import engine, plateau_stream, stream_plan
from riskcov.metrics.plateau_stream import GROUP_SQL, RUNS_SQL, STREAM_PACKED, STREAM_TWO_SUMS, WEIGHTED_SQL

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "example_run.json"


def _write_samples(path: Path) -> None:
    """400 samples in 150 clusters, 0/1 losses, one in twelve abstaining: confidence_a nearly
    continuous (some ties), confidence_b five levels."""
    rng = random.Random(11)
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE t (sample_id VARCHAR, cluster BIGINT, confidence_a DOUBLE, confidence_b DOUBLE, "
        "correct INTEGER, abstained BOOLEAN)"
    )
    rows = []
    for i in range(400):
        a = round(rng.random(), 3 if i % 7 else 1)
        correct = int(rng.random() < a)
        rows.append((f"s{i}", rng.randrange(150), a, rng.randrange(5) / 4, correct, i % 12 == 0))
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", rows)
    con.execute(f"COPY t TO '{path}' (FORMAT parquet)")
    con.close()


def _artifact(wh: Path, opts: evaluate.Options, *, stream: bool, monkeypatch: Any) -> str:
    monkeypatch.setattr(stream_plan, "STREAM_MIN_CELLS", 0 if stream else 10**12)
    with open_warehouse(wh) as con:
        con.execute("SET preserve_insertion_order = false")  # the stream path must set it itself
        art = evaluate.run(con, opts).artifact
    art.pop("created_at")
    return json.dumps(art, sort_keys=True)


@pytest.mark.parametrize(("workers", "packed"), [(1, True), (2, True), (1, False)])
def test_per_sample_stream_is_bit_identical(tmp_path, run_cli, monkeypatch, workers, packed):
    _write_samples(tmp_path / "run.parquet")
    wh = tmp_path / "w.duckdb"
    assert run_cli(["ingest", tmp_path / "run.parquet", "--warehouse", wh]).exit_code == 0
    opts = evaluate.Options(
        inputs=["run"], confidence="all", bootstrap_resamples=60, seed=5, workers=workers, chunk_replicates=25
    )
    taken: list[str] = []
    chunked_sums: list[tuple[str, list[int]]] = []
    insert, per_replicate = plateau_stream._insert, plateau_stream._per_replicate

    def spy(con: Any, table: str, query: str, weights: Any, *args: Any, **kwargs: Any) -> None:
        assert con.execute("SELECT current_setting('preserve_insertion_order')").fetchall() == [(True,)]
        if weights.size or not kwargs.get("create"):  # not eval_points' empty first block
            taken.append(query)
        insert(con, table, query, weights, *args, **kwargs)

    def spy_sums(con: Any, into: str, query: str, terms: Any, weights: Any, rows: Any) -> None:
        chunked_sums.append((query, list(weights)))
        per_replicate(con, into, query, terms, weights, rows)

    if not packed:  # the two running sums, as where the packed one could pass 2^53
        monkeypatch.setattr(plateau_stream, "packing_unit", lambda k_total, largest: None)
    monkeypatch.setattr(plateau_stream, "_insert", spy)
    monkeypatch.setattr(plateau_stream, "_per_replicate", spy_sums)
    loaded: list[int] = []  # the first replicate of each chunk whose sample rows were stored
    load = engine.load_samples
    monkeypatch.setattr(
        engine, "load_samples", lambda con, rep, *a: loaded.append(int(rep[0])) or load(con, rep, *a)
    )
    chunked = _artifact(wh, opts, stream=False, monkeypatch=monkeypatch)
    assert not taken
    assert len(loaded) > 2 and loaded.count(0) == 1
    loaded.clear()
    assert _artifact(wh, opts, stream=True, monkeypatch=monkeypatch) == chunked
    # the stream weights its stored rows itself: eval_samples only for replicate 0's curves
    assert loaded == [0]
    # both shapes and the sums without a join ran, for every replicate: 0..60; the stream
    # one query per replicate (one packed running sum for these 0/1 losses, unless refused),
    # the sums over participants and plateaus one per chunk of 25
    assert taken.count(STREAM_PACKED if packed else STREAM_TWO_SUMS) == 61
    for query in (GROUP_SQL, WEIGHTED_SQL, RUNS_SQL):
        chunks = [replicates for q, replicates in chunked_sums if q == query]
        assert sorted(r for c in chunks for r in c) == list(range(61))
        assert len(chunks) <= 8 and max(len(c) for c in chunks) > 1


def test_paired_phq8_stream_is_bit_identical(tmp_path, run_cli, monkeypatch):
    wh = tmp_path / "w.duckdb"
    assert run_cli(["ingest", EXAMPLE, "--warehouse", wh]).exit_code == 0
    run_id = json.loads(EXAMPLE.read_text())["run_metadata"]["run_id"]
    opts = evaluate.Options(
        inputs=[run_id, run_id], modes=["zero_shot", "few_shot"], confidence="all", bootstrap_resamples=40
    )
    chunked = _artifact(wh, opts, stream=False, monkeypatch=monkeypatch)
    assert _artifact(wh, opts, stream=True, monkeypatch=monkeypatch) == chunked


def test_multiplicities_out_of_line_with_the_stored_rows_raise():
    """Each positional join checks the participant ids that ride along with the weights."""
    con = duckdb.connect()
    con.execute(
        "CREATE TEMP TABLE eval_stream_people AS SELECT 0 AS population, range AS participant_id, "
        "1 AS n_items, 1 AS n_pred, 0.0 AS loss_sum FROM range(3)"
    )
    # one scan for a chunk of replicates; one that draws nobody has no row (as when each
    # replicate was summed over its drawn rows only)
    weights = {r: np.array(m, dtype=np.int32) for r, m in {1: [2, 1, 1], 2: [0, 0, 3], 3: [0, 0, 0]}.items()}
    position = np.arange(3, dtype=np.int64)
    into, terms = "CREATE OR REPLACE TEMP TABLE t AS", plateau_stream.WEIGHTED_TERMS
    plateau_stream._per_replicate(con, into, WEIGHTED_SQL, terms, weights, (position, position))
    assert con.execute("SELECT replicate, n_total FROM t ORDER BY replicate").fetchall() == [(1, 4), (2, 3)]
    with pytest.raises(duckdb.Error, match="not scanned in its insertion order"):
        swapped = (position, position[::-1].copy())
        plateau_stream._per_replicate(con, into, WEIGHTED_SQL, terms, weights, swapped)
