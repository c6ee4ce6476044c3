"""DuckDB's block pool for the replicate chunks (metrics.chunk_plan.block_pool sizes it from
eval_cells' shape, metrics.chunks.keep_blocks sets it, never lower: docs/performance.md)."""

from __future__ import annotations

import duckdb
import pytest

from riskcov.metrics import chunk_plan, chunks
from rows_at_once import insert


def _cells(own: int, shared_plateaus: int, per_plateau: int = 3) -> duckdb.DuckDBPyConnection:
    """eval_cells with `own` unshared predicted cells and `shared_plateaus` plateaus of
    `per_plateau` shared cells each, and one unpredicted cell (not counted)."""
    con = duckdb.connect()
    rows = [(1, p, False, 1) for p in range(own)]
    rows += [(2, p, True, 1) for p in range(shared_plateaus) for _ in range(per_plateau)]
    rows.append((3, 0, False, 0))
    con.execute("CREATE TEMP TABLE eval_cells (series INT, plateau INT, shared BOOLEAN, n_pred INT)")
    insert(con, "eval_cells", rows)
    return con


def _pool(own: int, shared_plateaus: int, chunk: int, workers: int) -> int:
    """block_pool for chunks of `chunk` replicates on `workers` over _cells(own, shared_plateaus)."""
    return chunk_plan.block_pool(chunk_plan.chunk_shape(_cells(own, shared_plateaus)), chunk, workers)


def _setting(con: duckdb.DuckDBPyConnection) -> str:
    return con.execute("SELECT current_setting('block_allocator_memory')").fetchall()[0][0]


@pytest.mark.parametrize(
    ("own", "shared", "chunk", "workers"),
    [(1000, 500, 1000, 2), (400, 20, 300, 1), (10, 2, 100, 2), (5000, 4000, 2000, 2)],
)
def test_block_pool_is_the_points_held_at_once_within_bounds(own, shared, chunk, workers):
    # a replicate's points: each unshared cell drawn (1 - 1/e of them), each shared plateau once
    points = max(1.0, own * 0.632 + shared)
    wanted = min(chunk_plan.MAX_POOL_BYTES, int(workers * chunk * points * chunk_plan.POOL_BYTES_PER_POINT))
    expected = wanted if wanted >= chunk_plan.MIN_POOL_BYTES else 0
    assert _pool(own, shared, chunk, workers) == expected


def test_block_pool_cases_cover_the_bounds():
    assert _pool(10, 2, 100, 2) == 0  # `default`-like: no pool
    assert _pool(5000, 4000, 2000, 2) == chunk_plan.MAX_POOL_BYTES
    assert 0 < _pool(1000, 500, 1000, 2) < chunk_plan.MAX_POOL_BYTES


def test_keep_blocks_raises_the_pool_and_never_lowers_it():
    con = duckdb.connect()
    before = _setting(con)
    chunks.keep_blocks(con, 0)
    assert _setting(con) == before  # 0: nothing set
    chunks.keep_blocks(con, 96 * 2**20)
    assert _setting(con) == "96.0 MiB"
    chunks.keep_blocks(con, 32 * 2**20)  # DuckDB refuses to lower it: the larger pool stays
    assert _setting(con) == "96.0 MiB"
    chunks.keep_blocks(con, 128 * 2**20)
    assert _setting(con) == "128.0 MiB"
