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
    # three columns, the block (series, replicate) as one key: the fetch is most of the cost
    pts = con.execute(
        "SELECT (CAST(series AS BIGINT) << 32) + replicate AS block, k_cum, "
        "CAST(round(l_cum / loss_scale) AS BIGINT) AS l "
        f"FROM {source} JOIN (SELECT DISTINCT series, replicate, loss_scale FROM eval_totals) "
        f"USING (series, replicate) WHERE series IN ({ids})"
    ).fetchnumpy()
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
