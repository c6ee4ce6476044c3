"""The engine's metrics of TEMP TABLE eval_scored for replicate 0..B, in chunks of replicates
as `evaluate` runs them, for the evaluations built on other scored relations than evaluate's
own (SCOD's pooled samples, per-group subsets)."""

from __future__ import annotations

from typing import Any

import duckdb

from riskcov.bootstrap import sample_chunks
from riskcov.metrics import chunk_plan, chunks, engine
from riskcov.scoring.scored import Series


def compute(
    con: duckdb.DuckDBPyConnection,
    series: list[Series],
    participants: list[int],
    b: int,
    seed: int,
    alphas: list[float],
) -> engine.Results:
    """aurc_full, augrc_full, Cmax, Coverage@Risk(alpha) (and the engine's other scalars) per
    series and replicate, the draws those of `evaluate` with the same participants and seed;
    engine.drop_series must have run on eval_scored."""
    chunk, workers, lead = chunk_plan.plan_chunks(con, b)
    total = engine.Results(b + 1)

    def work(cur: duckdb.DuckDBPyConnection, rows: tuple[Any, Any, Any]) -> None:
        engine.load_samples(cur, *rows)
        engine.compute(
            cur, series, total, area_c=1.0, grid=[1.0], alphas=alphas, estimator="plateau-trapezoid"
        )
        cur.execute("DROP TABLE eval_points")

    sizes = chunk_plan.chunk_sizes(b, chunk, workers, lead)
    chunks.run(con, sample_chunks(participants, b, seed, sizes), work, workers)
    return total
