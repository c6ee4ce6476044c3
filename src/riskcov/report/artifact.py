"""The metrics artifact of docs/formats.md: assembled from engine results, written as strict JSON."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from riskcov.bootstrap.intervals import interval, paired, std_error, summarize
from riskcov.metrics import cost_curves
from riskcov.metrics.engine import Results
from riskcov.report.keys import DELTAS, EXTRA_KEYS, WITH_CI, grid_key
from riskcov.scoring.scored import Series
from riskcov.warehouse.duckdb_helpers import Transaction
from riskcov.warehouse.files import StagedOutput, write_output

# the artifact's curve arrays (docs/formats.md)
CURVE_KEYS = ("coverage", "selective_risk", "generalized_risk", "threshold")


def _value(arr: np.ndarray[Any, Any], sid: int) -> float | None:
    v = float(arr[sid, 0])
    return None if math.isnan(v) else v


def _pct(num: float, den: float) -> float:
    return num / den * 100 if den != 0 else 0.0


def series_metrics(
    res: Results,
    s: Series,
    *,
    area_c: float,
    grid: list[float],
    alphas: list[float],
    bootstrap: dict[str, Any] | None,
    costs: list[float] | None = None,
) -> dict[str, Any]:
    """METRICS of docs/formats.md for one series (bootstrap: {seed, n_resamples} or None), with
    the effective reliability per cost of `costs` (docs/metrics-extended.md) when given."""
    sc, i = res.scalars, s.index
    point = {k.key: _value(sc[k.key], i) for k in WITH_CI}  # None: undefined (docs/metrics.md)
    v = {key: x for key, x in point.items() if x is not None}
    curve = {k: res.curves[i][k] for k in CURVE_KEYS}
    achievable = res.achievable.get(i, 0.0)  # no hull: no working point (K = 0)
    used = min(area_c, v["cmax"])
    mae: dict[str, Any] = {}
    for c in grid:
        val = _value(sc[f"mae@{c!r}"], i)
        mae[grid_key(c)] = (
            None
            if val is None
            else {"requested": c, "achieved": _value(sc[f"mae_achieved@{c!r}"], i), "value": val}
        )
    car = {
        grid_key(a): {
            "alpha": a,
            "coverage": float(sc[f"car_coverage@{a!r}"][i, 0]),
            "risk": _value(sc[f"car_risk@{a!r}"], i),
            "threshold": _value(sc[f"car_threshold@{a!r}"], i),
        }
        for a in alphas
    }
    out: dict[str, Any] = {
        "cmax": v["cmax"],
        "aurc_full": v["aurc_full"],
        "augrc_full": v["augrc_full"],
        "aurc_optimal": v["aurc_optimal"],
        "augrc_optimal": v["augrc_optimal"],
        "eaurc": v["eaurc"],
        "eaugrc": v["eaugrc"],
        "aurc_achievable": achievable,
        "aurc_optimal_population": point["aurc_optimal_population"],
        "eaurc_population": point["eaurc_population"],
        "aurc_achievable_interpolated": point["aurc_achievable_interpolated"],
        "interpretation": {
            "aurc_gap_pct": _pct(v["eaurc"], v["aurc_optimal"]),
            "augrc_gap_pct": _pct(v["eaugrc"], v["augrc_optimal"]),
            "achievable_gain_pct": _pct(v["aurc_full"] - achievable, v["aurc_full"]),
        },
        "aurc_at_c": {"requested": area_c, "used": used, "value": v["aurc_at_c"]},
        "augrc_at_c": {"requested": area_c, "used": used, "value": v["augrc_at_c"]},
        "mae_at_coverage": mae,
        "coverage_at_risk": car,
        "bootstrap": {},
        "curve": curve,
    }
    if i in res.curve_grids:  # --curve-points K
        out["curve_grid"] = res.curve_grids[i]
    if bootstrap:
        out["bootstrap"] = summarize(
            {k.key: (point[k.key], sc[k.key][i, 1:]) for k in WITH_CI},
            {grid_key(c): (_value(sc[f"mae@{c!r}"], i), sc[f"mae@{c!r}"][i, 1:]) for c in grid},
            {grid_key(a): (car[grid_key(a)]["coverage"], sc[f"car_coverage@{a!r}"][i, 1:]) for a in alphas},
            bootstrap,
        )
    _extra(out, res, i, bootstrap is not None)
    if costs is not None:
        out["effective_reliability"] = cost_curves.block(res, i, costs, grid_key)
        if bootstrap:  # the best Phi_c of each replicate (docs/metrics-extended.md)
            _phi_intervals(out, res, i, costs)
        # the area between the oracle's and this curve's selective accuracy over [0, Cmax]:
        # the same integral as eaurc_population (docs/metrics-extended.md), so the same number
        out["oracle_gap_area"] = point["eaurc_population"]
    return out


def _phi_intervals(out: dict[str, Any], res: Results, i: int, costs: list[float]) -> None:
    """ci95 and std_error of the effective reliability per cost, from each replicate's best Phi_c."""
    cis, errors = out["bootstrap"]["ci95"], out["bootstrap"]["std_error"]
    cis["effective_reliability"], errors["effective_reliability"] = {}, {}
    for c in costs:
        value, reps = out["effective_reliability"][grid_key(c)]["value"], cost_curves.replicates(res, i, c)
        if reps is not None:
            cis["effective_reliability"][grid_key(c)] = interval(value, reps)[0]
            errors["effective_reliability"][grid_key(c)] = std_error(value, reps)


def _extra(out: dict[str, Any], res: Results, i: int, bootstrapped: bool) -> None:
    for key in EXTRA_KEYS:
        if key not in res.scalars:
            continue
        point = _value(res.scalars[key], i)
        out[key] = point
        if bootstrapped:
            replicates = res.scalars[key][i, 1:]
            out["bootstrap"]["ci95"][key] = interval(point, replicates)[0]
            out["bootstrap"]["std_error"][key] = std_error(point, replicates)


def deltas(
    res: Results, left: Series, right: Series, grid: list[float], bootstrapped: bool
) -> dict[str, Any]:
    """Paired deltas right - left, each replicate drawing the same participants for both."""
    names = [(k.key, k.key) for k in DELTAS] + [
        (f"mae_at_coverage_{grid_key(c)}", f"mae@{c!r}") for c in grid
    ]
    out: dict[str, Any] = {}
    for key, name in names:
        arr = res.scalars[name]
        d = arr[right.index] - arr[left.index]
        out[key] = paired(None if math.isnan(d[0]) else float(d[0]), d[1:], bootstrapped)
    return out


def dumps(artifact: dict[str, Any]) -> str:
    """Strict JSON: a NaN or Infinity is a bug, never written (json raises ValueError)."""
    return json.dumps(artifact, indent=2, allow_nan=False)


def utc_now() -> str:
    """created_at: UTC with a Z suffix."""
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def write(artifact: dict[str, Any], path: Path) -> None:
    """Write atomically: a failed run leaves no half artifact behind (riskcov.warehouse.files)."""
    write_output(path, dumps(artifact) + "\n", "the artifact")


def write_on_commit(tx: Transaction, artifact: dict[str, Any], path: Path) -> None:
    """Stage the artifact beside `path` now (flushed to disk) and rename it into place right
    after the transaction commits; on rollback it is removed. A kill -9 between COMMIT and the
    rename leaves the staged file, which `riskcov.report.store.recover_artifacts` renames."""
    staged = StagedOutput(path, dumps(artifact) + "\n", "the artifact")
    tx.then(staged.finish, staged.discard)
