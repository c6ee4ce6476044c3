"""Replicate working points by cumulative cells: the few-cluster path of "sort once"
(docs/performance.md, the shape rule).

A bootstrap replicate does not change the order of items by confidence, only how many times
each participant (cluster) is drawn. With few participants, `plan` stores once, per series and
plateau, every participant's cumulative predicted items and raw loss up to that plateau and up
to the one before (rc_cumulative_cells: one list over the participants in draw order, the four
integers packed into one double). A replicate's working point at a plateau is then one inner
product of its multiplicities with that list (rc_cell_points): no join by participant, no
window, no per-replicate running sum. The points are the rows rc_running_exact gives over
rc_plateaus, bit for bit: every number is an integer-valued sum below 2^53, exact in any
order, and the metric macros read them as they read the chunked path's points.

When (`plan` decides once per evaluation; otherwise the chunked path, engine.POINTS_SQL):
- every loss is integer-valued (PHQ-8's abs errors, 0/1 losses); continuous losses keep the
  chunked path, whose sums are compensated in a fixed order;
- the packing fits: with P participants, a replicate's sums are at most P times a
  participant's largest (items, loss) in a series, and the four fields' bits together must
  stay within 53 (PHQ-8: 41 participants use 38 bits, 189 use 48);
- the inner products cost less than the join they replace: P x plateaus at most
  MAX_PRODUCTS_PER_CELL x predicted cells over all series (a replicate multiplies P numbers per
  plateau, where the chunked path joins about 0.63 of the cells and sorts them);
- at most MAX_PARTICIPANTS participants: a replicate's multiplicities are one column per
  participant (list_value), a cost per replicate in P whatever the plateaus, which the rule
  above leaves out (a participant per sample, few distinct confidences: it passes up to 8,191
  samples with 0/1 losses, and up to the stream's threshold when every loss is 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np

from riskcov.warehouse.duckdb_helpers import one, one_thread, registered

TABLE = "eval_cumulative_cells"
# per population, its participants' sums and loss counts as lists in draw order (POPULATIONS_SQL)
POPULATIONS = "eval_cell_populations"
# the cost rule above; see docs/performance.md for the measurements behind it
MAX_PRODUCTS_PER_CELL = 48
# beyond it the chunked path is faster per replicate (docs/performance.md, the shape rule)
MAX_PARTICIPANTS = 1024
# the packed double holds integers below 2^53
PACKED_BITS = 53
IntArray = np.ndarray[Any, np.dtype[np.int64]]


@dataclass
class Plan:
    """The participants in draw order and the packing's bases (powers of two)."""

    participants: IntArray
    draw_order: IntArray
    k_base: float
    l_base: float


def bases(participants: int, max_items: int, max_loss: int) -> tuple[int, int] | None:
    """(k_base, l_base): the powers of two above the largest item count and raw loss sum a
    replicate of `participants` draws can reach in a series, given one participant's largest;
    None when the four packed fields would not fit in PACKED_BITS.

    >>> bases(41, 8, 24)
    (512, 1024)
    >>> bases(100_000, 8, 24) is None
    True
    """
    k_bits = (participants * max_items).bit_length()
    l_bits = (participants * max_loss).bit_length()
    if 2 * (k_bits + l_bits) > PACKED_BITS:
        return None
    return 1 << k_bits, 1 << l_bits


# the shape plan() reads: integral losses, predicted cells, distinct plateaus over all series,
# and a participant's largest predicted items and raw loss sum in one series
SHAPE_SQL = """
    WITH predicted AS (FROM eval_cells WHERE n_pred > 0),
    most AS (SELECT sum(n_pred) AS n, sum(loss_sum) AS l FROM predicted GROUP BY series, participant_id)
    SELECT (SELECT coalesce(bool_and(all_integral), true) FROM eval_people),
           (SELECT count(*) FROM predicted),
           (SELECT count(DISTINCT (series, plateau)) FROM predicted),
           (SELECT coalesce(max(n), 0) FROM most), (SELECT coalesce(max(l), 0.0) FROM most)"""


# What rc_totals_of and rc_loss_runs join eval_samples with, as lists over the participants in
# draw order ({order}: participant_id, position), one row per population: each participant's
# item, predicted-item and raw loss sums (eval_people; 0 for a participant outside the
# population, `member` 1 inside it) and, per loss value v of the population (ascending), its
# item counts (eval_losses) and its items and raw loss of the values below v. A replicate's
# sums are then inner products with its multiplicities (TOTALS_SQL, RUNS_SQL): exact integers
# below 2^53 on this path (every loss integer-valued, the packing's bound), so the values of
# the joins' sums and of rc_placed_runs' running sums.
POPULATIONS_SQL = """
    WITH people AS (
        SELECT k.population,
               list(CAST(coalesce(p.n_items, 0) AS DOUBLE) ORDER BY d.position) AS n_items,
               list(CAST(coalesce(p.n_pred, 0) AS DOUBLE) ORDER BY d.position) AS n_pred,
               list(coalesce(p.loss_sum, 0.0) ORDER BY d.position) AS loss_sum,
               list(CASE WHEN p.participant_id IS NULL THEN 0.0 ELSE 1.0 END ORDER BY d.position) AS member
        FROM (SELECT DISTINCT population FROM eval_people) AS k
        CROSS JOIN {order} AS d
        LEFT JOIN eval_people AS p ON p.population = k.population AND p.participant_id = d.participant_id
        GROUP BY k.population
    ),
    loss_values AS (
        SELECT population, loss AS v, any_value(loss_scale) AS loss_scale
        FROM eval_losses GROUP BY population, loss
    ),
    cells AS (
        SELECT k.population, k.v, k.loss_scale, d.position, CAST(coalesce(l.n, 0) AS DOUBLE) AS n
        FROM loss_values AS k
        CROSS JOIN {order} AS d
        LEFT JOIN eval_losses AS l
            ON l.population = k.population AND l.loss = k.v AND l.participant_id = d.participant_id
    ),
    counts AS (  -- per loss value, each participant's items of it and of the lower values
        SELECT population, v, loss_scale, list(n ORDER BY position) AS counts,
               list(n_below ORDER BY position) AS below, list(loss_below ORDER BY position) AS loss_below
        FROM (SELECT *, coalesce(sum(n) OVER lower, 0.0) AS n_below,
                     coalesce(sum(n * v) OVER lower, 0.0) AS loss_below
              FROM cells
              WINDOW lower AS (PARTITION BY population, position ORDER BY v
                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))
        GROUP BY population, v, loss_scale
    ),
    losses AS (
        SELECT population, list(v ORDER BY v) AS v, list(loss_scale ORDER BY v) AS loss_scale,
               list(counts ORDER BY v) AS counts, list(below ORDER BY v) AS below,
               list(loss_below ORDER BY v) AS loss_below
        FROM counts GROUP BY population
    )
    SELECT * FROM people LEFT JOIN losses USING (population)"""
# per chunk: each replicate's multiplicities as one list (the columns of `weights`), read by
# the statements below and rc_cell_points
DRAWS_SQL = (
    "CREATE OR REPLACE TEMP TABLE eval_cell_draws AS SELECT replicate, list_value({m}) AS m FROM {dense}"
)
# eval_totals: rc_totals_of's rows, its weighted sums (the integral branch: every loss is
# integer-valued here) taken as inner products, a row per population a replicate draws someone of
TOTALS_SQL = f"""
    CREATE OR REPLACE TEMP TABLE eval_totals AS
    WITH weighted AS (
        SELECT population, replicate, n_total, k_total, l_total, true AS integral
        FROM (SELECT p.population, w.replicate,
                     CAST(list_inner_product(w.m, p.n_items) AS BIGINT) AS n_total,
                     CAST(list_inner_product(w.m, p.n_pred) AS BIGINT) AS k_total,
                     list_inner_product(w.m, p.loss_sum) AS l_total,
                     list_inner_product(w.m, p.member) AS drawn
              FROM eval_cell_draws AS w CROSS JOIN {POPULATIONS} AS p)
        WHERE drawn > 0
    )
    FROM rc_totals_weighted('eval_series', 'weighted')"""
# rc_placed_runs' rows over rc_loss_runs' (population, replicate, v, loss_scale, c, a, la): the
# loss values a replicate draws, with the items (a) and raw loss (la) it draws below each
RUNS_SQL = f"""
    CREATE OR REPLACE TEMP TABLE eval_runs AS
    SELECT population, replicate, v, loss_scale, c, a, la
    FROM (SELECT p.population, w.replicate, unnest(p.v) AS v, unnest(p.loss_scale) AS loss_scale,
                 unnest(list_transform(p.counts, lambda x: CAST(list_inner_product(w.m, x) AS HUGEINT))) AS c,
                 unnest(list_transform(p.below, lambda x: CAST(list_inner_product(w.m, x) AS HUGEINT))) AS a,
                 unnest(list_transform(p.loss_below, lambda x: list_inner_product(w.m, x))) AS la
          FROM eval_cell_draws AS w CROSS JOIN {POPULATIONS} AS p
          WHERE p.v IS NOT NULL)
    WHERE c > 0"""


def plan(con: duckdb.DuckDBPyConnection, participants: list[int], *, allowed: bool = True) -> Plan | None:
    """Choose the path by the shape of eval_cells (the module's rule) and, for this path, store
    TABLE (rc_cumulative_cells in draw order); None, and TABLE empty, for the chunked path
    (metrics/chunks.py shares it all the same)."""
    ids = np.asarray(participants, dtype=np.int64)
    chosen = None
    allowed = allowed and len(ids) <= MAX_PARTICIPANTS
    row = one(con.execute(SHAPE_SQL)) if allowed else None  # its scan is costly at 1 M cells
    if row is not None and row[0] and row[1] and len(ids):
        _, cells, plateaus, max_items, max_loss = row
        fits = bases(len(ids), int(max_items), int(max_loss))
        if fits is not None and len(ids) * int(plateaus) <= MAX_PRODUCTS_PER_CELL * int(cells):
            chosen = Plan(ids, np.argsort(ids, kind="stable"), float(fits[0]), float(fits[1]))
    if chosen is None:
        for table in (TABLE, POPULATIONS):
            con.execute(f"CREATE OR REPLACE TEMP TABLE {table} (n BIGINT)")
        return None
    positions = {"participant_id": ids, "position": np.arange(len(ids), dtype=np.int64)}
    with registered(con, "_draw_order", positions) as draw_order:
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {TABLE} AS FROM rc_cumulative_cells("
            f"'eval_cells', '{draw_order}', 'eval_series', 'eval_people', $k_base, $l_base)",
            {"k_base": chosen.k_base, "l_base": chosen.l_base},
        )
        populations = POPULATIONS_SQL.format(order=draw_order)
        con.execute(f"CREATE OR REPLACE TEMP TABLE {POPULATIONS} AS {populations}")
    return chosen


def weights(plan: Plan, samples: tuple[Any, Any, Any]) -> dict[str, np.ndarray[Any, Any]]:
    """Sample rows (replicate, participant_id, multiplicity) as bootstrap.sample_chunks yields
    them, as one row per replicate, in their order, with one column m0, m1, ... per participant
    in draw order: its multiplicity (0 when not drawn).

    >>> plan = Plan(np.array([7, 9]), np.array([0, 1]), 4.0, 4.0)
    >>> w = weights(plan, (np.array([0, 0, 1]), np.array([7, 9, 9]), np.array([1, 1, 2])))
    >>> w["replicate"].tolist(), w["m0"].tolist(), w["m1"].tolist()
    ([0, 1], [1.0, 0.0], [1.0, 2.0])
    """
    rep, pid, mult = (np.asarray(a) for a in samples)
    replicates, row = np.unique(rep, return_inverse=True)
    p = len(plan.participants)
    position = plan.draw_order[np.searchsorted(plan.participants, pid, sorter=plan.draw_order)]
    dense = np.zeros((p, len(replicates)), dtype=np.float64)  # one contiguous row per column
    dense[position, row] = mult
    return {"replicate": replicates.astype(np.int32), **{f"m{j}": dense[j] for j in range(p)}}


def totals(con: duckdb.DuckDBPyConnection, plan: Plan, samples: tuple[Any, Any, Any]) -> None:
    """TEMP TABLEs eval_totals (rc_totals_weighted: rc_totals_of's rows) and eval_runs (the
    oracle's runs placed: rc_placed_runs' rows over rc_loss_runs') of the replicates in
    `samples`, from each replicate's multiplicities (TEMP TABLE eval_cell_draws, which
    `points` reads too) and POPULATIONS: inner products instead of joining eval_samples (which
    this path need not load) and of a window per replicate."""
    m = ", ".join(f"m{j}" for j in range(len(plan.participants)))
    with registered(con, "_cell_weights", weights(plan, samples)) as dense:
        con.execute(DRAWS_SQL.format(m=m, dense=dense))
    con.execute(TOTALS_SQL)
    con.execute(RUNS_SQL)


def points(con: duckdb.DuckDBPyConnection, plan: Plan) -> None:
    """TEMP TABLE eval_points of the replicates in eval_cell_draws (`totals`; every block exact,
    as eval_totals says), from TABLE: rc_cell_points' rows without k_total, as
    engine.POINTS_SQL stores them. On one thread: rc_cell_points streams its rows in the order
    it checks. Each replicate's list of multiplicities is built from its row's columns
    (list_value), not aggregated from one row per participant: an ordered list aggregate
    sorted every group."""
    with one_thread(con):
        con.execute(
            "CREATE OR REPLACE TEMP TABLE eval_points AS "
            f"SELECT * EXCLUDE (k_total) FROM rc_cell_points('{TABLE}', 'eval_cell_draws', $k_base, $l_base)",
            {"k_base": plan.k_base, "l_base": plan.l_base},
        )
