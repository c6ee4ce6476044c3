"""An RC curve sampled at K coverages 0..Cmax (`evaluate --curve-points K`, `riskcov curve`):
the point estimate's working points read by sql/rc_curve_grid.sql as a right-continuous step."""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np

from riskcov.scoring.scored import Series
from riskcov.warehouse.duckdb_helpers import registered

GridCurve = dict[str, list[float | None]]


def coverages(cmax: float, points: int) -> np.ndarray[Any, np.dtype[np.float64]]:
    """i * Cmax / (K - 1) for i = 0..K-1, the last exactly Cmax. Not numpy.linspace, whose
    0.6000000000000001 would pass over a working point at coverage 3/5 = 0.6.

    >>> coverages(1.0, 6).tolist()
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    """
    grid = np.arange(points, dtype=np.float64) * cmax / (points - 1)
    grid[-1] = cmax
    return grid


def sample(
    con: duckdb.DuckDBPyConnection, series: list[Series], cmax: dict[int, float], points: int
) -> dict[int, GridCurve]:
    """Per computed series: coverage (K values from 0 to its Cmax, `coverages`), and the
    selective and generalized risk of the first working point (replicate 0 of eval_points) with
    coverage >= each value; None where there is none (no predicted item)."""
    out: dict[int, GridCurve] = {}
    for s in series:
        if s.computed != s.index:
            continue
        grid = coverages(cmax[s.index], points)
        con.execute(
            "CREATE OR REPLACE TEMP VIEW eval_curve_points AS "
            f"SELECT * FROM eval_points WHERE replicate = 0 AND series = {int(s.index)}"
        )
        with registered(con, "_curve_grid", {"coverage": grid}):
            rows = con.execute(
                "SELECT coverage, selective_risk, generalized_risk "
                "FROM rc_curve_grid('eval_curve_points', '_curve_grid')"
            ).fetchall()
        by_c: dict[float, tuple[Any, Any]] = {r[0]: (r[1], r[2]) for r in rows}
        out[s.index] = {
            "coverage": [float(c) for c in grid],
            "selective_risk": [by_c.get(float(c), (None, None))[0] for c in grid],
            "generalized_risk": [by_c.get(float(c), (None, None))[1] for c in grid],
        }
    return out
