"""fd-shifts' achievable AURC with non-linear interpolation (docs/metrics.md), for every replicate.

Which working points count is decided here (the dominant points of a 0/1-loss series: the
hull routine metrics.hull.lower_hull over all replicates at once); the area itself is the
`rc_interpolated` macro's. Under the plateau estimator the kept points are the vertices of
the lower convex hull of each 0/1-loss block, which is also all that effective reliability
needs of that block's points (metrics.cost_curves reads them, TEMP TABLE eval_vertices).
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np

from riskcov.metrics.hull import lower_hull
from riskcov.warehouse.duckdb_helpers import registered

IntArray = np.ndarray[Any, np.dtype[np.int64]]


# The points (block, k_cum, l) lower_hull reads of `source`'s series {ids} (l the loss sum in
# loss units, an integer for 0/1 losses), without those of the series {binary} (0/1 losses)
# that cannot be vertices of their block's lower convex hull with (0, 0), which is all
# lower_hull needs of such a block. A point on or above the chord between two points of its
# block (or (0, 0)) on either side of it is no hull vertex (a vertex lies strictly below
# every such chord); the hull of the points without it is the same hull, and lower_hull
# (exact, collinear points dropped) returns its vertices whatever else it is given. The chord
# is taken between the rows before and after the point in the scan, the neighbours in plateau
# order as the points are stored (a scan keeps that order on one thread), but any order is
# sound: a neighbour counts only if it is of the same block on the right side of the point
# (k_cum rises), and (0, 0) stands for a missing one before it. This is the test of
# lower_hull's first pass (metrics/hull.py, _integer_pass; ties dropped): the step out of the
# point no steeper than the step into it, in integers, decided only where both products are
# exact (below 2^53; else the point is kept).
CANDIDATES_SQL = """
    SELECT block, k_cum, l
    FROM (
        SELECT *,
               CASE WHEN lag(block) OVER () = block THEN lag(k_cum) OVER () ELSE 0 END AS k_prev,
               CASE WHEN lag(block) OVER () = block THEN lag(l) OVER () ELSE 0 END AS l_prev,
               CASE WHEN lead(block) OVER () = block THEN lead(k_cum) OVER () END AS k_next,
               CASE WHEN lead(block) OVER () = block THEN lead(l) OVER () END AS l_next
        FROM (SELECT series, (CAST(series AS BIGINT) << 32) + replicate AS block, k_cum,
                     CAST(round(l_cum / {scale}) AS BIGINT) AS l
              FROM {source} {join} WHERE series IN ({ids})))
    WHERE NOT coalesce(
        series IN ({binary}) AND k_prev < k_cum AND k_cum < k_next
        AND CAST(l_next - l AS DOUBLE) * (k_cum - k_prev) <= CAST(l - l_prev AS DOUBLE) * (k_next - k_cum)
        AND greatest(abs(CAST(l_next - l AS DOUBLE) * (k_cum - k_prev)),
                     abs(CAST(l - l_prev AS DOUBLE) * (k_next - k_cum))) < 9007199254740992.0,
        false)"""


def _loss_scales(con: duckdb.DuckDBPyConnection) -> tuple[dict[str, str], dict[str, Any]]:
    """CANDIDATES_SQL's loss scale of a point (its {scale} and {join}, and parameters): where
    each series has one (rc_series), looked up by series in a list, where a join with
    eval_totals cost as much as the rest of the query; else that join."""
    rows = con.execute("SELECT series, list(DISTINCT loss_scale) FROM eval_totals GROUP BY series").fetchall()
    if any(len(scales) > 1 for _, scales in rows):
        totals = "(SELECT DISTINCT series, replicate, loss_scale FROM eval_totals)"
        return {"scale": "loss_scale", "join": f"JOIN {totals} USING (series, replicate)"}, {}
    by_series: list[float | None] = [None] * (max((int(s) for s, _ in rows), default=-1) + 1)
    for sid, (scale,) in rows:
        by_series[int(sid)] = float(scale)
    return {"scale": "$scales[series + 1]", "join": ""}, {"scales": by_series}


def _block_order(block: IntArray, k_cum: IntArray) -> IntArray | None:
    """None when the rows already come in plateau order within contiguous blocks (as the
    points are stored: a scan without ORDER BY keeps that order, and sorting ~0.5 M points per
    replicate of a per-sample run was a third of this module's time), else the permutation that
    sorts them so. Every point adds items, so k_cum rises strictly with the plateau within a
    block, and a block is in plateau order exactly when its k_cum rises.

    >>> _block_order(np.array([5, 5, 2]), np.array([1, 2, 1])) is None
    True
    >>> _block_order(np.array([5, 2, 5]), np.array([1, 1, 2])).tolist()
    [1, 0, 2]
    """
    if not len(block):
        return None
    change = block[1:] != block[:-1]
    starts = block[np.flatnonzero(np.r_[True, change])]
    if np.all(change | (k_cum[1:] > k_cum[:-1])) and len(np.unique(starts)) == len(starts):
        return None
    return np.lexsort((k_cum, block)).astype(np.int64)


def _hull_of_blocks(
    block: IntArray, k_cum: IntArray, loss: IntArray, rows: int = 1 << 18
) -> np.ndarray[Any, Any]:
    """lower_hull(..., from_origin=True) of rows in block order, taken a slice of whole blocks
    of about `rows` rows at a time: blocks are independent, and a pass over a slice reuses
    the memory of the last one, where a pass over every replicate of a chunk at once
    allocates (and faults in) a fresh array per step.

    >>> b, k, l = np.array([0, 0, 1, 1, 1]), np.array([1, 2, 1, 3, 4]), np.array([1, 1, 0, 1, 2])
    >>> _hull_of_blocks(b, k, l, rows=2).tolist() == lower_hull(b, k, l, from_origin=True).tolist()
    True
    """
    starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]]) if len(block) else block
    keep = np.empty(len(block), dtype=bool)
    lo = 0
    while lo < len(block):
        nxt = np.searchsorted(starts, lo + rows)  # the first block starting at or after lo + rows
        hi = int(starts[nxt]) if nxt < len(starts) else len(block)
        keep[lo:hi] = lower_hull(block[lo:hi], k_cum[lo:hi], loss[lo:hi], from_origin=True)
        lo = hi
    return keep


def _candidates(con: duckdb.DuckDBPyConnection, estimator: str) -> str:
    """The plateau points docs/metrics.md speaks of, whatever the estimator: under the item estimators
    eval_points has a point per item (ties broken by key), and a plateau's point is the last
    item point of its confidence."""
    if estimator == "plateau-trapezoid":
        return "eval_points"
    con.execute("""
        CREATE OR REPLACE TEMP TABLE eval_plateau_points AS
        SELECT * EXCLUDE (raw, next_raw) FROM (
            SELECT p.*, s.raw, lead(s.raw) OVER (PARTITION BY p.series, p.replicate ORDER BY p.plateau)
                AS next_raw
            FROM eval_points AS p
            JOIN (SELECT series, confidence AS threshold, raw_confidence AS raw FROM eval_scored
                  WHERE confidence IS NOT NULL) AS s USING (series, threshold))
        WHERE next_raw IS DISTINCT FROM raw
        ORDER BY series, replicate, plateau""")
    return "eval_plateau_points"


def compute(
    con: duckdb.DuckDBPyConnection, binary: list[int], estimator: str
) -> dict[str, np.ndarray[Any, Any]] | None:
    """aurc_achievable_interpolated per (series, replicate) of the series whose points are a
    subset of the plateau points: under the plateau estimator the `binary` series (losses all 0
    or 1: dominant points only), under the item estimators every series (plateau ends). Every
    other series takes rc_metrics' aurc_interpolated_points; None when no series needs this.
    Under the plateau estimator the kept points stay in TEMP TABLE eval_vertices for
    metrics.cost_curves (an earlier chunk's are dropped first, so no reader sees stale ones)."""
    con.execute("DROP TABLE IF EXISTS eval_vertices")
    source = _candidates(con, estimator)
    if estimator == "plateau-trapezoid":
        if not binary:
            return None
        ids = ", ".join(str(int(s)) for s in binary)
    else:
        ids = "SELECT DISTINCT series FROM eval_plateau_points"
    # three columns, the block (series, replicate) as one key: the fetch is most of the cost,
    # so of the 0/1-loss series only the points that may be hull vertices are fetched
    flagged = ", ".join(str(int(s)) for s in binary) or "NULL"
    scale, params = _loss_scales(con)
    query = CANDIDATES_SQL.format(source=source, ids=ids, binary=flagged, **scale)
    pts = con.execute(query, params).fetchnumpy()
    block, k_cum, loss = (pts[k].astype(np.int64, copy=False) for k in ("block", "k_cum", "l"))
    order = _block_order(block, k_cum)
    if order is not None:
        block, k_cum, loss = block[order], k_cum[order], loss[order]
    keep = _hull_of_blocks(block, k_cum, loss)
    if estimator != "plateau-trapezoid":  # only the binary series were read under the plateau one
        keep |= ~np.isin(block >> 32, np.asarray(binary, dtype=np.int64))  # continuous: every point
    # a point is its block's only one with its k_cum (k_cum rises within a block)
    kept = {
        "series": (block[keep] >> 32).astype(np.int64),
        "replicate": (block[keep] & 0xFFFFFFFF).astype(np.int32),
        "k_cum": k_cum[keep],
    }
    table = "eval_vertices" if estimator == "plateau-trapezoid" else "eval_kept"
    with registered(con, "_keep", kept):
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {table} AS "
            f"SELECT * FROM {source} SEMI JOIN _keep USING (series, replicate, k_cum)"
        )
    out: dict[str, np.ndarray[Any, Any]] = con.execute(
        "SELECT series, replicate, aurc_achievable_interpolated "
        f"FROM rc_interpolated('{table}', 'eval_totals') WHERE series IN ({ids})"
    ).fetchnumpy()
    return out
