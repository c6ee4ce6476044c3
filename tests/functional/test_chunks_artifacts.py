"""Replicate chunks on several connections (metrics/chunks.py) through whole evaluations: the
artifact bit for bit the one-connection artifact, and no chunk starts with the previous chunk's
points."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from riskcov.metrics import cells, chunk_plan, chunks


def _spy_parallel(monkeypatch) -> list[int]:
    """The cursors of each run of chunks on several connections, as they happen."""
    calls: list[int] = []
    parallel = chunks._parallel

    def spy(con, cursors, first, it, work):
        calls.append(len(cursors))
        return parallel(con, cursors, first, it, work)

    monkeypatch.setattr(chunks, "_parallel", spy)
    return calls


def test_two_workers_give_the_one_connection_artifact_bit_for_bit(paired_artifact, monkeypatch):
    calls = _spy_parallel(monkeypatch)
    same = {"participants": 17, "run_seed": 5, "bootstrap_resamples": 60, "seed": 4}
    one = paired_artifact("one", **same, chunk_replicates=60, workers=1)
    assert calls == []
    two = paired_artifact("two", **same, chunk_replicates=4, workers=2)
    assert calls == [1]
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


def test_each_chunk_starts_without_the_previous_chunks_points(paired_artifact, monkeypatch):
    from riskcov.metrics import engine

    compute = engine.compute
    held: list[int] = []

    def spy(cur, *args, **kwargs):
        # TEMP tables are per connection: what this worker still holds from its last chunk (read
        # to the end: a result left open on the connection would refuse the chunk's register())
        rows = cur.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'eval_points'").fetchall()
        held.append(rows[0][0])
        compute(cur, *args, **kwargs)

    monkeypatch.setattr(engine, "compute", spy)
    paired_artifact(
        "dropped", participants=17, run_seed=5, bootstrap_resamples=60, seed=4, chunk_replicates=4, workers=2
    )
    assert held == [0] * len(chunk_plan.chunk_sizes(60, 4, 2)) == [0] * 17


@pytest.mark.parametrize("resamples", [0, 3])
def test_few_replicates_on_two_workers_give_the_one_worker_artifact(paired_artifact, monkeypatch, resamples):
    # the first chunk's lead at its edges: 3 in chunks of 2 is the smallest case it moves
    calls = _spy_parallel(monkeypatch)
    sizes: list[list[int]] = []
    chunk_sizes = chunk_plan.chunk_sizes
    monkeypatch.setattr(
        chunk_plan, "chunk_sizes", lambda *a, **k: sizes.append(chunk_sizes(*a, **k)) or sizes[-1]
    )
    same = {"participants": 9, "run_seed": 11, "bootstrap_resamples": resamples, "seed": 3}
    one = json.dumps(paired_artifact(f"one{resamples}", **same, workers=1), sort_keys=True)
    assert calls == []
    for chunk in (1, 2):
        two = paired_artifact(f"two{resamples}-{chunk}", **same, chunk_replicates=chunk, workers=2)
        assert json.dumps(two, sort_keys=True) == one
    assert calls == [1, 1]  # both chunkings ran on the two-worker path
    assert sizes[-2:] == ([[], []] if resamples == 0 else [[1, 1, 1], [1, 2]])  # the lead moved one


def test_the_block_pool_is_set_for_the_chunks_and_changes_no_bit(paired_artifact, monkeypatch):
    # the pool only changes where DuckDB's blocks come from: the artifact is the one without it
    same = {"participants": 17, "run_seed": 5, "bootstrap_resamples": 30, "seed": 4, "chunk_replicates": 4}
    without = paired_artifact("no_pool", **same, workers=2)
    kept: list[int] = []
    keep = chunks.keep_blocks
    monkeypatch.setattr(chunk_plan, "MIN_POOL_BYTES", 1)  # this small run's pool would be too small

    def spy(con, nbytes):
        kept.append(nbytes)
        keep(con, nbytes)
        kept.append(con.execute("SELECT current_setting('block_allocator_memory')").fetchone()[0])

    monkeypatch.setattr(chunks, "keep_blocks", spy)
    pooled = paired_artifact("pool", **same, workers=2, block_pool=True)
    assert len(kept) == 2 and kept[0] > 0 and kept[1] != "0 bytes"
    kept.clear()
    paired_artifact("library", **same, workers=2)  # the library's callers keep their memory
    assert kept == []
    assert json.dumps(without, sort_keys=True) == json.dumps(pooled, sort_keys=True)


def test_the_cli_asks_for_the_pool_and_the_library_does_not(run_cli, tmp_path, monkeypatch):
    # the CLI's process ends with the instance; a library caller's open warehouse would keep it
    asked: list[bool] = []
    monkeypatch.setattr(chunks, "keep_blocks", lambda con, nbytes: asked.append(True))
    from riskcov.api import Warehouse

    example = Path(__file__).parents[2] / "examples" / "example_run.json"
    api = Warehouse(tmp_path / "api.duckdb")
    api.evaluate(example, mode="few_shot", resamples=20, output=tmp_path / "a.json")
    assert asked == []
    out = tmp_path / "cli.json"
    args = ["--warehouse", tmp_path / "cli.duckdb", "evaluate", "--input", example, "--mode", "few_shot"]
    result = run_cli([*args, "--bootstrap-resamples", "20", "--output", out, "--no-publish"])
    assert result.exit_code == 0, result.stderr
    assert asked == [True]


def test_each_chunks_sample_rows_are_made_once(run_cli, tmp_path, monkeypatch):
    # eval_samples and the cumulative cells' weights read the same rows: made once per chunk
    from riskcov.bootstrap.draws import Draws

    made: list[int] = []
    rows = Draws.rows
    monkeypatch.setattr(Draws, "rows", lambda self: made.append(id(self)) or rows(self))
    planned = cells.plan
    plans: list[object] = []

    def plan(*args, **kwargs):
        plans.append(planned(*args, **kwargs))
        return plans[-1]

    monkeypatch.setattr(cells, "plan", plan)
    example = Path(__file__).parents[2] / "examples" / "example_run.json"
    args = ["--warehouse", tmp_path / "w.duckdb", "evaluate", "--input", example, "--mode", "few_shot"]
    args += ["--bootstrap-resamples", "3000", "--no-publish"]
    result = run_cli([*args, "--output", tmp_path / "a.json"])
    assert result.exit_code == 0, result.stderr
    assert len(plans) == 1 and plans[0] is not None and len(made) >= 2  # the cells path, two chunks or more
    assert len(made) == len(set(made))
