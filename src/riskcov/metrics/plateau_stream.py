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

from riskcov.db import one

# a series is streamed when every series of the evaluation has at least this many predicted
# cells: below it, one query per series and replicate costs more than the chunked path's sort
STREAM_MIN_CELLS = 50_000
# a series whose plateaus are fewer than this share of its cells is summed per plateau first
GROUP_PLATEAU_SHARE = 0.25
TABLES = ("eval_stream_cells", "eval_group_cells", "eval_stream_people", "eval_stream_losses")
IntArray = np.ndarray[Any, np.dtype[np.int64]]


@dataclass
class Plan:
    """Which series take which path, and where each stored cell's participant is drawn."""

    participants: IntArray  # ids in draw order (sample_chunks' columns)
    streamed: list[tuple[int, IntArray]]  # (series, draw position of each cell) in stored order
    grouped: list[int]  # series summed per plateau, stored together in eval_group_cells
    grouped_cells: IntArray  # draw position of each cell of eval_group_cells
    people: IntArray  # draw position of each row of eval_stream_people (rc_people)
    losses: IntArray  # draw position of each row of eval_stream_losses (rc_loss_counts)


def plan(con: duckdb.DuckDBPyConnection, participants: list[int]) -> Plan | None:
    """Store the predicted cells (eval_cells) of every series in plateau order, and the
    per-participant sums (eval_people, eval_losses) in participant order (TABLES), and choose
    each series' path; None, and the tables empty, when a series has too few cells for the
    stream or a loss is not integer-valued (the stream's sums are plain sums)."""
    integral = one(con.execute("SELECT coalesce(bool_and(all_integral), true) FROM eval_people"))
    stats = con.execute(
        "SELECT series, count(*), count(DISTINCT plateau) FROM eval_cells WHERE n_pred > 0 "
        "GROUP BY series ORDER BY series"
    ).fetchall()
    for table in TABLES:
        con.execute(f"DROP TABLE IF EXISTS {table}")
    chosen = bool(stats and integral and integral[0])
    chosen = chosen and min(int(cells) for _, cells, _ in stats) >= STREAM_MIN_CELLS
    grouped = [int(s) for s, cells, plateaus in stats if chosen and plateaus < GROUP_PLATEAU_SHARE * cells]
    streamed = [int(s) for s, *_ in stats if chosen and int(s) not in grouped]
    ids = np.asarray(participants, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    con.execute("SET preserve_insertion_order = true")  # the stored order is the streams'

    def store(table: str, query: str) -> IntArray:
        con.execute(f"CREATE TEMP TABLE {table} AS {query}")
        pid = con.execute(f"SELECT participant_id FROM {table}").fetchnumpy()["participant_id"]
        return order[np.searchsorted(ids, pid, sorter=order)].astype(np.int64)

    def cells(series: list[int]) -> str:
        listed = ", ".join(str(s) for s in series) or "NULL"
        return (
            "SELECT series, plateau, confidence AS threshold, n_pred, loss_sum, participant_id "
            f"FROM eval_cells WHERE n_pred > 0 AND series IN ({listed}) "
            "ORDER BY series, plateau, participant_id"
        )

    stream_cells = store("eval_stream_cells", cells(streamed))
    series_of = con.execute("SELECT series FROM eval_stream_cells").fetchnumpy()["series"]
    lo, hi = (np.searchsorted(series_of, streamed, side=side) for side in ("left", "right"))
    per_series = [(s, stream_cells[a:b]) for s, a, b in zip(streamed, lo, hi, strict=True)]
    group_cells = store("eval_group_cells", cells(grouped))
    keep = "" if chosen else "WHERE false"
    people = store("eval_stream_people", f"FROM eval_people {keep} ORDER BY population, participant_id")
    losses = store("eval_stream_losses", f"FROM eval_losses {keep} ORDER BY population, participant_id, loss")
    return Plan(ids, per_series, grouped, group_cells, people, losses) if chosen else None


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


# rc_totals_of's and rc_loss_runs' weighted sums (their exact branch: plan() requires integer
# losses), over the participants in draw order instead of a join with the sample rows
WEIGHTED_SQL = """
    SELECT p.population, CAST($replicate AS INTEGER) AS replicate,
           CAST(sum(w.w * p.n_items) AS BIGINT) AS n_total,
           CAST(sum(w.w * p.n_pred) AS BIGINT) AS k_total,
           sum(w.w * p.loss_sum) AS l_total, true AS integral
    FROM eval_stream_people AS p POSITIONAL JOIN _weights AS w
    WHERE w.w > 0
    GROUP BY p.population"""
RUNS_SQL = """
    SELECT l.population, CAST($replicate AS INTEGER) AS replicate, l.loss AS v,
           any_value(l.loss_scale) AS loss_scale, sum(w.w * l.n) AS c
    FROM eval_stream_losses AS l POSITIONAL JOIN _weights AS w
    WHERE w.w > 0
    GROUP BY l.population, l.loss"""
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


def totals(
    con: duckdb.DuckDBPyConnection, plan: Plan, samples: tuple[Any, Any, Any]
) -> dict[int, np.ndarray[Any, Any]]:
    """TEMP TABLEs eval_totals (rc_totals_weighted) and eval_runs (the oracle's runs, as
    rc_loss_runs) of the replicates in `samples`; returns their multiplicities for `points`."""
    weights = multiplicities(plan, samples)
    sums = (("eval_weighted", WEIGHTED_SQL, plan.people), ("eval_runs", RUNS_SQL, plan.losses))
    for table, query, rows in sums:
        for i, (replicate, m) in enumerate(weights.items()):
            _insert(con, table, query, m[rows], {"replicate": replicate}, create=i == 0)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE eval_totals AS FROM rc_totals_weighted('eval_series', 'eval_weighted')"
    )
    return weights


def points(con: duckdb.DuckDBPyConnection, plan: Plan, weights: dict[int, np.ndarray[Any, Any]]) -> None:
    """TEMP TABLE eval_points of the replicates weighted by `totals` (all of whose blocks
    eval_totals says are exact), each (series, replicate) block contiguous and in plateau
    order, as the metric macros read them."""
    blocks = {
        (int(s), int(r)): (int(n), int(k), scale)
        for s, r, n, k, scale in con.execute(
            "SELECT series, replicate, n_total, k_total, loss_scale FROM eval_totals"
        ).fetchall()
    }
    con.execute("SET preserve_insertion_order = true")
    # an empty block first: eval_points with the chunked path's column types
    empty = {"replicate": -1, "series": -1, "n_total": 1, "k_total": 1, "loss_scale": 1}
    _insert(con, "eval_points", STREAM_SQL, np.zeros(0, dtype=np.int32), empty, create=True)
    for replicate, m in weights.items():
        if plan.grouped:
            _insert(con, "eval_points", GROUP_SQL, m[plan.grouped_cells], {"replicate": replicate})
        for series, cells in plan.streamed:
            n_total, k_total, scale = blocks[(series, replicate)]
            if k_total:  # nothing predicted: the block has no points
                params = {"replicate": replicate, "series": series, "n_total": n_total}
                params.update(k_total=k_total, loss_scale=scale)
                _insert(con, "eval_points", STREAM_SQL, m[cells], params)


def _insert(
    con: duckdb.DuckDBPyConnection,
    table: str,
    query: str,
    weights: Any,
    params: dict[str, Any],
    *,
    create: bool = False,
) -> None:
    """The rows of `query` over `weights` (lined up with its stored table) into `table`."""
    con.register("_weights", {"w": weights})
    try:
        into = f"CREATE OR REPLACE TEMP TABLE {table} AS" if create else f"INSERT INTO {table}"
        con.execute(f"{into} {query}", params)
    finally:
        con.unregister("_weights")
