"""Replicate working points by "sort once": for series with many clusters (per-sample runs,
large PHQ-8 runs), each series' cells are sorted into plateau order once per evaluation, and
a bootstrap replicate only reweights them.

A replicate does not change the order of items by confidence, only how many times each
participant (cluster) is drawn. So `stream_plan.plan` stores each series' predicted cells (rc_cells) in
plateau order once, with the position of each cell's participant in the draw order
(bootstrap.draw_chunks); `points` then gathers each replicate's multiplicities into that
order (numpy indexing, no arithmetic) and lines them up with the stored cells by position
(POSITIONAL JOIN), so the SQL needs no sort, no PARTITION BY replicate and no join by
participant. By shape, per series:

- most plateaus hold one cell (continuous confidences): the weighted cells stream through
  rc_running_stream, one query per series and replicate (running sums in plateau order);
- few plateaus for many cells (ratings, rounded scores): the cells are summed per plateau
  (rc_plateaus' sums, a hash aggregate, for every replicate of the chunk in one scan) and the
  plateaus, now few, go through rc_running_exact as in the chunked path.

The per-participant sums (totals, the oracle's loss runs) are likewise one scan per chunk.

Every number comes from the same SQL definitions (rc_point_columns for the points, and the
metric macros over eval_points afterwards) on exact integer sums, so the points are bit for
bit those of the chunked path (engine.POINTS_SQL). Evaluations with few cells per series
(41 participants) keep the chunked path: one query per replicate would cost more than the sort
it saves there.

Order: the stream relies on DuckDB scanning a table in insertion order on one thread
(`preserve_insertion_order`, which the plan pins); rc_running_stream checks every row's plateau
against the next one and raises rather than give wrong points.
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np

from riskcov.metrics.stream_plan import Draws, Plan, Rows, multiplicities, packing_unit
from riskcov.warehouse.duckdb_helpers import registered

MISALIGNED = "sort-once: a stored table was not scanned in its insertion order"
# The sums over participants and per plateau are taken for every replicate of a chunk in one
# scan of the stored rows: `_weights` holds one multiplicity column per replicate (w0, w1, ...,
# in the order of $replicates), each sum is a list with one element per replicate, and unnest
# turns the lists back into one row per replicate. Every sum is of integer-valued numbers (plan()
# requires integer losses), so it is exact in any order and adding a replicate's zero weights
# changes nothing; a row that no replicate drew is dropped as the per-replicate filter w > 0 did.
# {k} below is filled per chunk with one term per replicate (_per_replicate).
ALIGNED = "CASE WHEN w.participant_id <> {t}.participant_id THEN error($misaligned) ELSE true END"
# rc_totals_of's and rc_loss_runs' weighted sums (their exact branch), over the participants in
# draw order instead of a join with the sample rows: the rows rc_totals_weighted and
# rc_oracle_runs read
WEIGHTED_SQL = """
    SELECT population, replicate, n_total, k_total, l_total, true AS integral
    FROM (
        SELECT population, CAST(unnest($replicates) AS INTEGER) AS replicate,
               CAST(unnest(n) AS BIGINT) AS n_total, CAST(unnest(k) AS BIGINT) AS k_total,
               unnest(l) AS l_total, unnest(drawn) AS drawn
        FROM (
            SELECT p.population, list_value({n}) AS n, list_value({k}) AS k, list_value({l}) AS l,
                   list_value({drawn}) AS drawn
            FROM eval_stream_people AS p POSITIONAL JOIN _weights AS w
            WHERE {aligned}
            GROUP BY p.population))
    WHERE drawn > 0"""
WEIGHTED_TERMS = {
    "n": "sum(w.w{i} * p.n_items)",
    "k": "sum(w.w{i} * p.n_pred)",
    "l": "sum(w.w{i} * p.loss_sum)",
    "drawn": "max(w.w{i})",
    "aligned": ALIGNED.format(t="p"),
}
RUNS_SQL = """
    SELECT population, replicate, v, loss_scale, c
    FROM (
        SELECT population, CAST(unnest($replicates) AS INTEGER) AS replicate, v, loss_scale,
               unnest(c) AS c
        FROM (
            SELECT l.population, l.loss AS v, any_value(l.loss_scale) AS loss_scale,
                   list_value({c}) AS c
            FROM eval_stream_losses AS l POSITIONAL JOIN _weights AS w
            WHERE {aligned}
            GROUP BY l.population, l.loss))
    WHERE c > 0"""
RUNS_TERMS = {"c": "sum(w.w{i} * l.n)", "aligned": ALIGNED.format(t="l")}
STREAM_SQL = """
    WITH cells AS (
        SELECT c.series, CAST($replicate AS INTEGER) AS replicate, c.plateau, c.threshold,
               CAST(w.w * c.n_pred AS DOUBLE) AS k, w.w * c.loss_sum AS l
        FROM (FROM eval_stream_cells WHERE series = $series) AS c POSITIONAL JOIN _weights AS w
        WHERE CASE WHEN w.participant_id <> c.participant_id THEN error($misaligned) ELSE w.w > 0 END
    )
    SELECT * EXCLUDE (k_total)
    FROM {running}('cells', CAST($n_total AS BIGINT), CAST($k_total AS BIGINT), $loss_scale{unit})"""
# the block's two running sums as one where packing_unit proves it exact (rc_running_stream_packed)
STREAM_TWO_SUMS = STREAM_SQL.format(running="rc_running_stream", unit="")
STREAM_PACKED = STREAM_SQL.format(running="rc_running_stream_packed", unit=", CAST($unit AS DOUBLE)")
# a plateau's increments are its drawn cells' sums (stored cells predict: n_pred > 0, so k > 0
# exactly when a replicate draws one of them); the offsets run in rc_running_exact's order
GROUP_SQL = """
    WITH sums AS (
        SELECT c.series, c.plateau, any_value(c.threshold) AS threshold,
               list_value({k}) AS k, list_value({l}) AS l
        FROM eval_group_cells AS c POSITIONAL JOIN _weights AS w
        WHERE {aligned}
        GROUP BY c.series, c.plateau
    ),
    increments AS (
        FROM (SELECT series, CAST(unnest($replicates) AS INTEGER) AS replicate, plateau, threshold,
                     unnest(k) AS k, unnest(l) AS l
              FROM sums)
        WHERE k > 0
    ),
    totals AS (
        SELECT * REPLACE (
            coalesce(sum(k_total) OVER before, 0) AS k_offset,
            coalesce(sum(l_total) OVER before, 0.0) AS l_offset)
        FROM eval_totals
        WHERE replicate IN (SELECT unnest($replicates)) AND series IN (SELECT series FROM increments)
        WINDOW before AS (ORDER BY series, replicate ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    )
    SELECT * EXCLUDE (k_total) FROM rc_running_exact('increments', 'totals')"""
GROUP_TERMS = {
    "k": "sum(w.w{i} * c.n_pred)",
    "l": "sum(w.w{i} * c.loss_sum)",
    "aligned": ALIGNED.format(t="c"),
}


def totals(con: duckdb.DuckDBPyConnection, plan: Plan, draws: Draws) -> dict[int, np.ndarray[Any, Any]]:
    """TEMP TABLEs eval_totals (rc_totals_weighted) and eval_runs (the oracle's runs, as
    rc_loss_runs) of the replicates in `draws`; returns their multiplicities for `points`."""
    weights = multiplicities(plan, draws)
    for table, query, terms, rows in (
        ("eval_weighted", WEIGHTED_SQL, WEIGHTED_TERMS, plan.people),
        ("eval_runs", RUNS_SQL, RUNS_TERMS, plan.losses),
    ):
        _per_replicate(con, f"CREATE OR REPLACE TEMP TABLE {table} AS", query, terms, weights, rows)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE eval_totals AS FROM rc_totals_weighted('eval_series', 'eval_weighted')"
    )
    return weights


def points(con: duckdb.DuckDBPyConnection, plan: Plan, weights: dict[int, np.ndarray[Any, Any]]) -> None:
    """TEMP TABLE eval_points of the replicates weighted by `totals` (all of whose blocks
    eval_totals says are exact), each (series, replicate) block contiguous and in plateau
    order, as the metric macros read them."""
    blocks = {
        (int(s), int(r)): (int(n), int(k), scale, packing_unit(int(k), plan.largest_loss.get(int(s))))
        for s, r, n, k, scale in con.execute(
            "SELECT series, replicate, n_total, k_total, loss_scale FROM eval_totals"
        ).fetchall()
    }
    con.execute("SET preserve_insertion_order = true")
    # an empty block first: eval_points with the chunked path's column types
    empty = {"replicate": -1, "series": -1, "n_total": 1, "k_total": 1, "loss_scale": 1}
    none = np.zeros(0, dtype=np.int64)
    _insert(con, "eval_points", STREAM_TWO_SUMS, none, (none, none), empty, create=True)
    if plan.grouped:  # every replicate's few plateaus at once
        _per_replicate(con, "INSERT INTO eval_points", GROUP_SQL, GROUP_TERMS, weights, plan.grouped_cells)
    for replicate, m in weights.items():
        for series, cells in plan.streamed:
            n_total, k_total, scale, unit = blocks[(series, replicate)]
            if k_total:  # nothing predicted: the block has no points
                params = {"replicate": replicate, "series": series, "n_total": n_total}
                params.update(k_total=k_total, loss_scale=scale)
                query = STREAM_TWO_SUMS if unit is None else STREAM_PACKED
                if unit is not None:
                    params["unit"] = unit
                _insert(con, "eval_points", query, m, cells, params)


def _per_replicate(
    con: duckdb.DuckDBPyConnection,
    into: str,
    query: str,
    terms: dict[str, str],
    weights: dict[int, np.ndarray[Any, Any]],
    rows: Rows,
) -> None:
    """`into` the rows of `query` for every replicate of `weights` from one scan of its stored
    table (rows), each replicate's multiplicities (per participant, draw order) gathered into
    that table's order as a column w<i> of `_weights`; `terms` fills the query's per-replicate
    lists. The participant ids ride along, and the query checks them against the stored rows."""
    position, participant = rows
    columns: dict[str, np.ndarray[Any, Any]] = {"participant_id": participant}
    columns.update({f"w{i}": m[position] for i, m in enumerate(weights.values())})
    filled = {
        name: term if name == "aligned" else ", ".join(term.format(i=i) for i in range(len(weights)))
        for name, term in terms.items()
    }
    with registered(con, "_weights", columns):
        params = {"replicates": list(weights), "misaligned": MISALIGNED}
        con.execute(f"{into} {query.format(**filled)}", params)


def _insert(
    con: duckdb.DuckDBPyConnection,
    table: str,
    query: str,
    multiplicity: np.ndarray[Any, Any],
    rows: Rows,
    params: dict[str, Any],
    *,
    create: bool = False,
) -> None:
    """The rows of `query` into `table`, its stored table's rows weighted by `multiplicity`
    (per participant, draw order) gathered into their order. The participant ids ride along,
    and the query checks them against the stored rows: a scan out of insertion order raises."""
    position, participant = rows
    with registered(con, "_weights", {"w": multiplicity[position], "participant_id": participant}):
        into = f"CREATE OR REPLACE TEMP TABLE {table} AS" if create else f"INSERT INTO {table}"
        con.execute(f"{into} {query}", {**params, "misaligned": MISALIGNED})
