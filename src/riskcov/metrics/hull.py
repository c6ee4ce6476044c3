"""Achievable AURC (docs/metrics.md): the lower convex hull of the working points, integrated by the
same SQL as every other area (rc_running gives the hull points their predecessors' values)."""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np


def hull_indices(coverage: list[float], risk: list[float]) -> list[int]:
    """Indices of the lower convex hull of the working points (monotone chain, docs/metrics.md):
    a point is dropped when the turn it makes is clockwise or within 1e-10 of collinear.

    >>> hull_indices([0.25, 0.375, 0.5], [1.0, 0.9, 0.2])
    [0, 2]
    """
    hull: list[int] = []
    for j in sorted(range(len(coverage)), key=lambda j: coverage[j]):
        while len(hull) >= 2:
            o, a = hull[-2], hull[-1]
            cross = (coverage[a] - coverage[o]) * (risk[j] - risk[o]) - (risk[a] - risk[o]) * (
                coverage[j] - coverage[o]
            )
            if cross <= 1e-10:
                hull.pop()
            else:
                break
        hull.append(j)
    return hull


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
        for j in hull_indices(curve["coverage"], curve["selective_risk"]):
            cols["series"].append(sid)
            cols["plateau"].append(curve["plateau"][j])
            cols["threshold"].append(curve["threshold"][j])
            cols["k"].append(curve["k_cum"][j] - k0)
            cols["l"].append(curve["l_cum"][j] - l0)
            k0, l0 = curve["k_cum"][j], curve["l_cum"][j]
    con.register(
        "_hull",
        {
            "series": np.asarray(cols["series"], dtype=np.int64),
            "replicate": np.zeros(len(cols["series"]), dtype=np.int32),
            "plateau": np.asarray(cols["plateau"], dtype=np.int64),
            "threshold": np.asarray(cols["threshold"], dtype=np.float64),
            "k": np.asarray(cols["k"], dtype=np.int64),
            "l": np.asarray(cols["l"], dtype=np.float64),
        },
    )
    con.execute("CREATE OR REPLACE TEMP TABLE eval_hull_steps AS FROM _hull")
    con.unregister("_hull")
    con.execute(
        "CREATE OR REPLACE TEMP TABLE eval_hull AS FROM rc_running('eval_hull_steps', 'eval_totals0')"
    )
    rows = con.execute(
        "SELECT series, aurc_full FROM rc_metrics('eval_hull', 'eval_totals0', ?, 'plateau-trapezoid')",
        [area_c],
    ).fetchall()
    return {int(sid): float(v) for sid, v in rows}
