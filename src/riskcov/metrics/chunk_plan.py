"""The chunk plan of an evaluation's bootstrap replicates: how many replicates a chunk holds, on
how many connections the chunks run (metrics/chunks.py), and how the chunk of replicate 0 shares
its extra work (docs/performance.md).
"""

from __future__ import annotations

import duckdb

from riskcov.warehouse.duckdb_helpers import one

# A chunk's size is bounded twice. Its working points are sorted and stored (eval_points, dropped
# after the chunk), so their count bounds each worker's memory (figures in benchmarks/NOTES.md).
# Its participant x cell join only streams into aggregates, so that bound is wider.
POINTS_PER_CHUNK = 2_500_000
JOIN_ROWS_PER_CHUNK = 16_000_000
# What the chunk of replicate 0 computes besides (its curves and hull, a few statements), in
# replicates of one working point each; a replicate costs 1 + points / POINTS_PER_OVERHEAD of
# those (a statement's work per replicate besides its points). When each worker runs one chunk,
# the first gives half the difference to the others (chunk_sizes' lead).
REPLICATE0_EXTRA = 3_000
POINTS_PER_OVERHEAD = 16
# below this many join rows in all replicates a second connection costs more than it saves
PARALLEL_MIN_ROWS = 200_000
MAX_WORKERS = 8
# DuckDB's block allocator (docs/performance.md, the block pool): a chunk holds its points
# (~120 bytes each in eval_points) and the metric macros' aggregates over them, about twice
# that at its peak, on each worker; a pool below the lower bound saves too little to be worth
# memory the instance keeps, and the upper bound caps what it keeps
POOL_BYTES_PER_POINT = 256
MIN_POOL_BYTES = 64 * 2**20
MAX_POOL_BYTES = 2**30


def plan_chunks(
    con: duckdb.DuckDBPyConnection, n_resamples: int, shape: tuple[float, float, int] | None = None
) -> tuple[int, int, int]:
    """(replicates per chunk, connections to run chunks on, the first chunk's lead for
    chunk_sizes): chunks within POINTS_PER_CHUNK and JOIN_ROWS_PER_CHUNK in all, shared by one
    connection per DuckDB thread (metrics/chunks.py) once the replicates are worth it
    (chunk_shape, or `shape` if the caller read it, says how the joins and points per
    replicate are estimated).
    """
    joined, points, threads = shape if shape is not None else chunk_shape(con)
    workers = min(threads, MAX_WORKERS) if n_resamples * joined >= PARALLEL_MIN_ROWS else 1
    chunk = max(1, int(min(POINTS_PER_CHUNK / points, JOIN_ROWS_PER_CHUNK / joined) / workers))
    if workers > 1:
        # the fewest rounds of one chunk per worker the bound allows, the chunks as near one
        # size as can be: 9 chunks on 2 workers left the ninth alone while the other core
        # waited (~5 % of 41 x `all` x 10,000); now 10 of 1,000
        rounds = -(-n_resamples // (chunk * workers))
        chunk = -(-n_resamples // (rounds * workers))
    lead = int(REPLICATE0_EXTRA / (1 + points / POINTS_PER_OVERHEAD) / 2)
    return min(max(n_resamples, 1), chunk), workers, lead  # chunk >= 1: its bound is at least 1


def block_pool(shape: tuple[float, float, int], chunk: int, workers: int) -> int:
    """Bytes of DuckDB's block allocator worth keeping for chunks of `chunk` replicates on
    `workers` connections (metrics.chunks.keep_blocks): the working points they hold at once,
    POOL_BYTES_PER_POINT each, within MAX_POOL_BYTES; 0 below MIN_POOL_BYTES (a few points per
    replicate, as `default` gives, where the chunks' tables are small); `shape`: chunk_shape's.
    """
    points = shape[1]
    wanted = min(MAX_POOL_BYTES, int(workers * chunk * points * POOL_BYTES_PER_POINT))
    return wanted if wanted >= MIN_POOL_BYTES else 0


def chunk_shape(con: duckdb.DuckDBPyConnection) -> tuple[float, float, int]:
    """(cells a replicate joins, its working points, DuckDB's threads), estimated from eval_cells.

    A replicate draws about 1 - 1/e of the participants, so it joins that share of the
    (series, participant, plateau) cells; a cell that no other participant shares becomes a
    working point of its own, a shared plateau one point whoever draws it.
    """
    row = one(
        con.execute(
            "SELECT count(*), count(*) FILTER (WHERE NOT shared), "
            "count(DISTINCT (series, plateau)) FILTER (WHERE shared), current_setting('threads') "
            "FROM eval_cells WHERE n_pred > 0"
        )
    )
    cells, own, shared, threads = (int(v) for v in row) if row else (0, 0, 0, 1)
    return max(1.0, cells * 0.632), max(1.0, own * 0.632 + shared), threads


def chunk_sizes(n_resamples: int, chunk: int, workers: int, lead: int = 0) -> list[int]:
    """Replicates per chunk, in order: `chunk` each, but with several workers and more than one
    round of chunks the last round (workers x chunk replicates at most) in twice as many
    chunks, so that a worker that is done first takes half a chunk rather than the others
    waiting for it to run a whole one. (With one round only the halves would just add each
    chunk's fixed cost, ~0.04 CPU-s.) With one round, the first chunk, which holds replicate 0
    and so computes its curves and hull besides, gives `lead` of its replicates (at most half)
    to the others, so that the workers finish together rather than the others waiting for it.

    >>> chunk_sizes(10_000, 1_000, 2, lead=500)
    [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 500, 500, 500, 500]
    >>> chunk_sizes(7, 3, 1), chunk_sizes(10_000, 5_000, 2), chunk_sizes(5, 2, 2)
    ([3, 3, 1], [5000, 5000], [1, 1, 1, 1, 1])
    >>> chunk_sizes(10_000, 5_000, 2, lead=1_200), chunk_sizes(2_000, 700, 3, lead=500)
    ([3800, 6200], [350, 875, 775])
    """
    if n_resamples <= 0:
        return []
    tail = chunk * workers if workers > 1 and chunk * workers < n_resamples else 0
    head = n_resamples - tail
    sizes = [chunk] * (head // chunk) + ([head % chunk] if head % chunk else [])
    if workers > 1 and not tail and len(sizes) > 1:  # one round: each worker runs one chunk
        lead, others = min(lead, sizes[0] // 2), len(sizes) - 1
        q, r = divmod(lead, others)
        return [sizes[0] - lead] + [size + q + (i < r) for i, size in enumerate(sizes[1:])]
    pieces = 2 * workers
    q, r = divmod(tail, pieces)
    return sizes + [size for size in [q + 1] * r + [q] * (pieces - r) if size]
