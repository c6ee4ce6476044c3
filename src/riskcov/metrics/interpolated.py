"""fd-shifts' achievable AURC with non-linear interpolation (docs/metrics.md), for every replicate.

Which working points count is decided here (the dominant points of a 0/1-loss series, found
in numpy for all replicates at once); the area itself is the `rc_interpolated` macro's.
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np

IntArray = np.ndarray[Any, np.dtype[np.int64]]
BoolArray = np.ndarray[Any, np.dtype[np.bool_]]


def dominant(block: IntArray, a: IntArray, errors: IntArray) -> BoolArray:
    """Mask of the dominant points: the vertices of each block's lower convex hull of
    (0, 0) and the points (a_j, L_j) other than (0, 0), collinear points dropped, the last point kept.
    Rows are in (block, a) order; a and L are integer counts, so every test is exact.

    A point on or above the chord between its live neighbours is no hull vertex, so each pass
    drops every such point at once; passes repeat until the live points turn convex. Each pass
    works on the live points only (dropped ones are removed, so neighbours are adjacent): the
    first passes drop nearly every point of a long curve, and scanning the whole array again
    in each of the ~17 passes of a 1 M-sample replicate took 14x longer.

    >>> dominant(np.array([0, 0, 0, 0]), np.array([1, 3, 4, 5]), np.array([0, 1, 2, 2])).tolist()
    [True, False, False, True]
    """
    live = np.arange(len(a))
    b, x, y = block, a, errors
    while len(live):
        same = b[1:] == b[:-1]
        has_prev = np.concatenate(([False], same))
        has_next = np.concatenate((same, [False]))
        # a block's first point has (0, 0) before it; its last point is always kept
        xp = np.where(has_prev, np.concatenate(([0], x[:-1])), 0)
        yp = np.where(has_prev, np.concatenate(([0], y[:-1])), 0)
        xn = np.concatenate((x[1:], [0]))
        yn = np.concatenate((y[1:], [0]))
        # > 0 iff point j lies strictly below the chord from its previous to its next live point
        below = (yn - yp) * (x - xp) - (y - yp) * (xn - xp)
        keep = ~(has_next & (below <= 0))
        if keep.all():
            break
        live, b, x, y = live[keep], b[keep], x[keep], y[keep]
    alive = np.zeros(len(a), dtype=bool)
    alive[live] = True
    return alive


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
    other series takes rc_metrics' aurc_interpolated_points; None when no series needs this."""
    source = _candidates(con, estimator)
    if estimator == "plateau-trapezoid":
        if not binary:
            return None
        ids = ", ".join(str(int(s)) for s in binary)
    else:
        ids = "SELECT DISTINCT series FROM eval_plateau_points"
    pts = con.execute(
        "SELECT series, replicate, plateau, k_cum, round(l_cum / loss_scale) AS l "
        f"FROM {source} JOIN (SELECT DISTINCT series, replicate, loss_scale FROM eval_totals) "
        f"USING (series, replicate) WHERE series IN ({ids}) ORDER BY series, replicate, plateau"
    ).fetchnumpy()
    block = pts["series"].astype(np.int64) * (1 << 32) + pts["replicate"].astype(np.int64)
    keep = dominant(block, pts["k_cum"].astype(np.int64), pts["l"].astype(np.int64))
    keep |= ~np.isin(pts["series"], np.asarray(binary, dtype=np.int64))  # continuous: every point
    con.register(
        "_keep",
        {
            "series": pts["series"][keep].astype(np.int64),
            "replicate": pts["replicate"][keep].astype(np.int32),
            "plateau": pts["plateau"][keep].astype(np.int64),
        },
    )
    try:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE eval_kept AS "
            f"SELECT * FROM {source} SEMI JOIN _keep USING (series, replicate, plateau)"
        )
    finally:
        con.unregister("_keep")
    out: dict[str, np.ndarray[Any, Any]] = con.execute(
        "SELECT series, replicate, aurc_achievable_interpolated "
        f"FROM rc_interpolated('eval_kept', 'eval_totals') WHERE series IN ({ids})"
    ).fetchnumpy()
    return out
