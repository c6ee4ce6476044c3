"""Lower convex hulls of working points, and the achievable AURC (docs/metrics.md): the lower
convex hull of the working points (coverage, selective risk), integrated by the same SQL as
every other area (rc_running gives the hull points their predecessors' values). The one hull
routine, `lower_hull`, also picks fd-shifts' dominant points (metrics.interpolated)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import duckdb
import numpy as np

from riskcov.warehouse.duckdb_helpers import temp_table

BoolArray = np.ndarray[Any, np.dtype[np.bool_]]
# Shewchuk's bound on the rounding error of a 2x2 determinant of differences of doubles,
# (3 + 16 eps) eps relative to |left| + |right|, rounded up: a float determinant larger than
# this decides the sign; a smaller one is decided again in exact rationals
_ERROR_BOUND = 4e-16


def _on_or_above(
    xp: np.ndarray[Any, Any],
    yp: np.ndarray[Any, Any],
    x: np.ndarray[Any, Any],
    y: np.ndarray[Any, Any],
    xn: np.ndarray[Any, Any],
    yn: np.ndarray[Any, Any],
) -> BoolArray:
    """Whether each point (x, y) lies on or above the chord from (xp, yp) to (xn, yn), xp < xn,
    decided exactly: in integers for integer arrays (within int64), else in doubles where
    their error bound allows and in Fractions of the given doubles where it does not."""
    left = (yn - yp) * (x - xp)
    right = (y - yp) * (xn - xp)
    det = left - right  # > 0 iff (x, y) is strictly below the chord
    if np.issubdtype(det.dtype, np.integer):
        return np.asarray(det <= 0)
    out = np.asarray(det <= 0)
    # three equal risks (a run of error-free points, say) are collinear without any rounding
    level = (y == yp) & (yn == yp)
    for i in np.flatnonzero(~(np.abs(det) > _ERROR_BOUND * (np.abs(left) + np.abs(right))) & ~level):
        f = [Fraction(float(v[i])) for v in (xp, yp, x, y, xn, yn)]
        out[i] = (f[5] - f[1]) * (f[2] - f[0]) - (f[3] - f[1]) * (f[4] - f[0]) <= 0
    return out


def lower_hull(
    block: np.ndarray[Any, Any], x: np.ndarray[Any, Any], y: np.ndarray[Any, Any], *, from_origin: bool
) -> BoolArray:
    """Mask of the vertices of each block's lower convex hull, collinear points dropped, each
    block's last point kept; with `from_origin` the hull of (0, 0) and the points (a block's
    first point may then be dropped), else of the points alone (its first point kept too).
    Rows are in (block, x) order with x rising within a block; every test is exact.

    A point on or above the chord between its live neighbours is no hull vertex, so each pass
    drops every such point at once; passes repeat until the live points turn convex. Each pass
    works on the live points only (dropped ones are removed, so neighbours are adjacent): the
    first passes drop nearly every point of a long curve, and scanning the whole array again
    in each of the ~17 passes of a 1 M-sample replicate took 14x longer.

    >>> block = np.zeros(4, np.int64)
    >>> lower_hull(block, np.array([1, 3, 4, 5]), np.array([0, 1, 2, 2]), from_origin=True).tolist()
    [True, False, False, True]
    >>> lower_hull(block[:3], np.array([0.25, 0.375, 0.5]), np.array([1.0, 0.9, 0.2]),
    ...            from_origin=False).tolist()
    [True, False, True]
    """
    live = np.arange(len(x))
    b = block
    zero = np.zeros(1, dtype=x.dtype)
    integral = np.issubdtype(x.dtype, np.integer) and np.issubdtype(y.dtype, np.integer)
    while len(live) and integral:
        drop = _integer_pass(b, x, y, from_origin=from_origin)
        if not drop.any():
            return _mask(len(block), live)
        live, b, x, y = live[~drop], b[~drop], x[~drop], y[~drop]
    while len(live):
        same = b[1:] == b[:-1]
        has_prev = np.concatenate(([False], same))
        has_next = np.concatenate((same, [False]))
        # a block's first point has (0, 0) before it, or no predecessor (kept)
        xp = np.where(has_prev, np.concatenate((zero, x[:-1])), 0)
        yp = np.where(has_prev, np.concatenate((zero, y[:-1])), 0)
        xn = np.concatenate((x[1:], zero))
        yn = np.concatenate((y[1:], zero))
        inner = has_next & (has_prev if not from_origin else True)
        drop = np.zeros(len(live), dtype=bool)
        drop[inner] = _on_or_above(xp[inner], yp[inner], x[inner], y[inner], xn[inner], yn[inner])
        if not drop.any():
            break
        live, b, x, y = live[~drop], b[~drop], x[~drop], y[~drop]
    return _mask(len(block), live)


def _mask(n: int, live: np.ndarray[Any, Any]) -> BoolArray:
    alive = np.zeros(n, dtype=bool)
    alive[live] = True
    return alive


def _integer_pass(
    b: np.ndarray[Any, Any], x: np.ndarray[Any, Any], y: np.ndarray[Any, Any], *, from_origin: bool
) -> BoolArray:
    """One pass of lower_hull over integer points, the same test in fewer array operations:
    with the steps (dx, dy) into each point from its predecessor (from (0, 0) at a block's
    first point), a point lies on or above the chord between its neighbours exactly when the
    step out of it is no steeper than the step into it, dy_out * dx_in <= dy_in * dx_out
    (the chord test's determinant, expanded). The first pass sees every point of every block
    (a bootstrap replicate of a continuous score: one per drawn sample), so its array
    operations are most of the hull's cost.

    >>> _integer_pass(np.zeros(4, np.int64), np.array([1, 3, 4, 5]), np.array([0, 1, 2, 2]),
    ...               from_origin=True).tolist()
    [False, False, True, False]
    """
    first = np.empty(len(b), dtype=bool)
    first[:1] = True
    np.not_equal(b[1:], b[:-1], out=first[1:])
    dx, dy = np.empty_like(x), np.empty_like(y)
    dx[:1], dy[:1] = x[:1], y[:1]
    np.subtract(x[1:], x[:-1], out=dx[1:])
    np.subtract(y[1:], y[:-1], out=dy[1:])
    starts = np.flatnonzero(first)
    dx[starts], dy[starts] = x[starts], y[starts]
    drop = np.zeros(len(b), dtype=bool)
    # a point with no successor in its block (first[j + 1]) is its block's last: kept
    np.less_equal(dy[1:] * dx[:-1], dy[:-1] * dx[1:], out=drop[:-1])
    drop[:-1] &= ~first[1:]
    if not from_origin:  # the first point of a block has no predecessor: kept
        drop &= ~first
    return drop


def achievable(
    con: duckdb.DuckDBPyConnection, curves: dict[int, dict[str, list[Any]]], area_c: float
) -> dict[int, float]:
    """AURC of each series' hull points (replicate 0: eval_scored, eval_totals0).

    A hull point adds the items and raw loss of every plateau since the previous hull point;
    rc_running turns those increments into points exactly as it does for plateaus.
    """
    cols: dict[str, list[Any]] = {"series": [], "plateau": [], "threshold": [], "k": [], "l": []}
    for sid, curve in curves.items():
        k0, l0 = 0, 0.0
        order = np.argsort(np.asarray(curve["coverage"], dtype=np.float64), kind="stable")
        vertices = lower_hull(
            np.zeros(len(order), np.int64),
            np.asarray(curve["coverage"], dtype=np.float64)[order],
            np.asarray(curve["selective_risk"], dtype=np.float64)[order],
            from_origin=False,
        )
        for j in order[vertices].tolist():
            cols["series"].append(sid)
            cols["plateau"].append(curve["plateau"][j])
            cols["threshold"].append(curve["threshold"][j])
            cols["k"].append(curve["k_cum"][j] - k0)
            cols["l"].append(curve["l_cum"][j] - l0)
            k0, l0 = curve["k_cum"][j], curve["l_cum"][j]
    temp_table(
        con,
        "eval_hull_steps",
        {
            "series": np.asarray(cols["series"], dtype=np.int64),
            "replicate": np.zeros(len(cols["series"]), dtype=np.int32),
            "plateau": np.asarray(cols["plateau"], dtype=np.int64),
            "threshold": np.asarray(cols["threshold"], dtype=np.float64),
            "k": np.asarray(cols["k"], dtype=np.int64),
            "l": np.asarray(cols["l"], dtype=np.float64),
        },
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE eval_hull AS FROM rc_running('eval_hull_steps', 'eval_totals0')"
    )
    rows = con.execute(
        "SELECT series, aurc_full FROM rc_metrics('eval_hull', 'eval_totals0', ?, 'plateau-trapezoid')",
        [area_c],
    ).fetchall()
    return {int(sid): float(v) for sid, v in rows}
