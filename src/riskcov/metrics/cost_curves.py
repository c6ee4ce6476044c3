"""Effective reliability per cost (docs/metrics-extended.md): for each cost c of `--costs`,
the best Phi_c over replicate 0's working points with its threshold and coverage, from the
SQL macro rc_effective_reliability (on Spark: sql/portable/effective_reliability.sql). The
oracle-gap area that goes with it is the artifact's eaurc_population (the same integral),
not a number of its own."""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np

from riskcov.metrics.engine import Results
from riskcov.metrics.scalars import put
from riskcov.scoring.scored import Series

COLUMNS = ("phi", "threshold", "coverage")


def compute(con: duckdb.DuckDBPyConnection, series: list[Series], res: Results, costs: list[float]) -> None:
    """Phi_c, its threshold and coverage per series for replicate 0, when this chunk holds it
    (TEMP TABLE eval_points), into res.scalars[f"phi_{column}@{c!r}"][:, 0]."""
    for name in ("points", "totals"):
        con.execute(f"CREATE OR REPLACE TEMP VIEW eval_{name}0_view AS FROM eval_{name} WHERE replicate = 0")
    out = con.execute(
        "SELECT series, cost, phi, threshold, coverage "
        "FROM rc_effective_reliability('eval_points0_view', 'eval_totals0_view', ?)",
        [costs],
    ).fetchnumpy()
    for name in ("points", "totals"):
        con.execute(f"DROP VIEW eval_{name}0_view")
    store(res, series, costs, out)


def store(res: Results, series: list[Series], costs: list[float], out: dict[str, Any]) -> None:
    """Replicate 0's rows (series, cost, phi, threshold, coverage: the macro's, or the portable
    query's on Spark) into res.scalars."""
    if not len(out["series"]):
        return
    for c in costs:
        sel = out["cost"] == c
        for column in COLUMNS:
            put(res, series, f"phi_{column}@{c!r}", out["series"][sel], 0, out[column][sel])


def block(res: Results, index: int, costs: list[float], key: Any) -> dict[str, Any]:
    """The artifact's effective_reliability object of one series: {key(c): {cost, value,
    threshold, coverage}}; value None where no point was computed (no unit at all)."""
    out: dict[str, Any] = {}
    for c in costs:
        values = [_value(res.scalars.get(f"phi_{column}@{c!r}"), index) for column in COLUMNS]
        out[key(c)] = {"cost": c, "value": values[0], "threshold": values[1], "coverage": values[2]}
    return out


def _value(arr: np.ndarray[Any, Any] | None, index: int) -> float | None:
    if arr is None or np.isnan(arr[index, 0]):
        return None
    return float(arr[index, 0])
