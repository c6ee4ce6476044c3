"""Replicate working points by "sort once": for series with many clusters (per-sample runs,
large PHQ-8 runs), each series' cells are sorted into plateau order once per evaluation, and
a bootstrap replicate only reweights them.

A replicate does not change the order of items by confidence, only how many times each
participant (cluster) is drawn. So `plan` stores each series' predicted cells (rc_cells) in
plateau order once, with the position of each cell's participant in the draw order
(bootstrap.sample_chunks); `points` then gathers each replicate's multiplicities into that
order (numpy indexing, no arithmetic) and lines them up with the stored cells by position
(POSITIONAL JOIN), so the SQL needs no sort, no PARTITION BY replicate and no join by
participant. By shape, per series:

- most plateaus hold one cell (continuous confidences): the weighted cells stream through
  rc_running_stream, one query per series and replicate (running sums in plateau order);
- few plateaus for many cells (ratings, rounded scores): the cells are summed per plateau
  (rc_plateaus' sums, a hash aggregate) and the plateaus, now few, go through
  rc_running_exact as in the chunked path.

Every number comes from the same SQL definitions (rc_point_columns for the points, and the
metric macros over eval_points afterwards) on exact integer sums, so the points are bit for
bit those of the chunked path (engine.POINTS_SQL). Evaluations with few cells per series
(41 participants) keep the chunked path: one query per replicate would cost more than the sort
it saves there.

Order: the stream relies on DuckDB scanning a table in insertion order on one thread
(`preserve_insertion_order`, which `points` pins); rc_running_stream checks every row's plateau
against the next one and raises rather than give wrong points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np

# a series is streamed when every series of the evaluation has at least this many predicted
# cells: below it, one query per series and replicate costs more than the chunked path's sort
STREAM_MIN_CELLS = 50_000
# a series whose plateaus are fewer than this share of its cells is summed per plateau first
GROUP_PLATEAU_SHARE = 0.25
TABLES = ("eval_stream_cells", "eval_group_cells")
IntArray = np.ndarray[Any, np.dtype[np.int64]]


@dataclass
class Plan:
    """Which series take which path, and where each stored cell's participant is drawn."""

    participants: IntArray  # ids in draw order (sample_chunks' columns)
    streamed: list[tuple[int, IntArray]]  # (series, draw position of each cell) in stored order
    grouped: list[int]  # series summed per plateau, stored together in eval_group_cells
    grouped_cells: IntArray  # draw position of each cell of eval_group_cells


def plan(con: duckdb.DuckDBPyConnection, participants: list[int]) -> Plan | None:
    """Store the predicted cells (eval_cells) of every series in plateau order (TABLES) and
    choose each series' path; None, and the tables empty, when a series has too few cells for
    the stream."""
    stats = con.execute(
        "SELECT series, count(*), count(DISTINCT plateau) FROM eval_cells WHERE n_pred > 0 "
        "GROUP BY series ORDER BY series"
    ).fetchall()
    for table in TABLES:
        con.execute(f"DROP TABLE IF EXISTS {table}")
    chosen = bool(stats) and min(int(cells) for _, cells, _ in stats) >= STREAM_MIN_CELLS
    grouped = [int(s) for s, cells, plateaus in stats if chosen and plateaus < GROUP_PLATEAU_SHARE * cells]
    streamed = [int(s) for s, *_ in stats if chosen and int(s) not in grouped]
    ids = np.asarray(participants, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    con.execute("SET preserve_insertion_order = true")  # the stored order is the stream's

    def store(table: str, series: list[int]) -> IntArray:
        listed = ", ".join(str(s) for s in series) or "NULL"
        con.execute(
            f"CREATE TEMP TABLE {table} AS SELECT series, plateau, confidence AS threshold, n_pred, "
            f"loss_sum, participant_id FROM eval_cells WHERE n_pred > 0 AND series IN ({listed}) "
            "ORDER BY series, plateau, participant_id"
        )
        pid = con.execute(f"SELECT participant_id FROM {table}").fetchnumpy()["participant_id"]
        return order[np.searchsorted(ids, pid, sorter=order)].astype(np.int64)

    stream_cells = store("eval_stream_cells", streamed)
    series_of = con.execute("SELECT series FROM eval_stream_cells").fetchnumpy()["series"]
    lo, hi = (np.searchsorted(series_of, streamed, side=side) for side in ("left", "right"))
    per_series = [(s, stream_cells[a:b]) for s, a, b in zip(streamed, lo, hi, strict=True)]
    group_cells = store("eval_group_cells", grouped)
    return Plan(ids, per_series, grouped, group_cells) if chosen else None


def multiplicities(plan: Plan, samples: tuple[Any, Any, Any]) -> dict[int, np.ndarray[Any, Any]]:
    """Each replicate's multiplicity per participant (draw order), from sample rows
    (replicate, participant_id, multiplicity) as bootstrap.sample_chunks yields them."""
    rep, pid, mult = (np.asarray(a) for a in samples)
    order = np.argsort(plan.participants, kind="stable")
    pos = order[np.searchsorted(plan.participants, pid, sorter=order)]
    out: dict[int, np.ndarray[Any, Any]] = {}
    starts = np.flatnonzero(np.r_[True, rep[1:] != rep[:-1]]) if len(rep) else np.array([], dtype=np.int64)
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(rep)
        m = np.zeros(len(plan.participants), dtype=np.int32)
        m[pos[start:end]] = mult[start:end]
        out[int(rep[start])] = m
    return out


STREAM_SQL = """
    WITH cells AS (
        SELECT c.series, CAST($replicate AS INTEGER) AS replicate, c.plateau, c.threshold,
               CAST(w.w * c.n_pred AS DOUBLE) AS k, w.w * c.loss_sum AS l
        FROM (FROM eval_stream_cells WHERE series = $series) AS c POSITIONAL JOIN _weights AS w
        WHERE w.w > 0
    )
    SELECT * EXCLUDE (k_total)
    FROM rc_running_stream('cells', CAST($n_total AS BIGINT), CAST($k_total AS BIGINT), $loss_scale)"""
GROUP_SQL = """
    WITH increments AS (
        SELECT c.series, CAST($replicate AS INTEGER) AS replicate, c.plateau,
               any_value(c.threshold) AS threshold, sum(w.w * c.n_pred) AS k,
               sum(w.w * c.loss_sum) AS l
        FROM eval_group_cells AS c POSITIONAL JOIN _weights AS w
        WHERE w.w > 0
        GROUP BY c.series, c.plateau
    ),
    totals AS (
        SELECT * REPLACE (
            coalesce(sum(k_total) OVER before, 0) AS k_offset,
            coalesce(sum(l_total) OVER before, 0.0) AS l_offset)
        FROM eval_totals WHERE replicate = $replicate AND series IN (SELECT series FROM increments)
        WINDOW before AS (ORDER BY series ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    )
    SELECT * EXCLUDE (k_total) FROM rc_running_exact('increments', 'totals')"""


def points(con: duckdb.DuckDBPyConnection, plan: Plan, samples: tuple[Any, Any, Any]) -> None:
    """TEMP TABLE eval_points of the replicates in `samples` (all of whose blocks eval_totals
    says are exact), each (series, replicate) block contiguous and in plateau order, as the
    metric macros read them."""
    totals = {
        (int(s), int(r)): (int(n), int(k), scale)
        for s, r, n, k, scale in con.execute(
            "SELECT series, replicate, n_total, k_total, loss_scale FROM eval_totals"
        ).fetchall()
    }
    con.execute("SET preserve_insertion_order = true")
    empty = {"replicate": -1, "series": -1, "n_total": 1, "k_total": 1, "loss_scale": 1}
    con.register("_weights", {"w": np.zeros(0, dtype=np.int32)})
    try:  # the chunked path's column types (series, replicate and the totals cast alike)
        con.execute(f"CREATE OR REPLACE TEMP TABLE eval_points AS {STREAM_SQL}", empty)
    finally:
        con.unregister("_weights")
    for replicate, m in multiplicities(plan, samples).items():
        if plan.grouped:
            _insert(con, GROUP_SQL, m[plan.grouped_cells], {"replicate": replicate})
        for series, cells in plan.streamed:
            n_total, k_total, scale = totals[(series, replicate)]
            if k_total:  # nothing predicted: the block has no points
                params = {"replicate": replicate, "series": series, "n_total": n_total}
                _insert(con, STREAM_SQL, m[cells], {**params, "k_total": k_total, "loss_scale": scale})


def _insert(con: duckdb.DuckDBPyConnection, query: str, weights: Any, params: dict[str, Any]) -> None:
    con.register("_weights", {"w": weights})
    try:
        con.execute(f"INSERT INTO eval_points {query}", params)
    finally:
        con.unregister("_weights")
