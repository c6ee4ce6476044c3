"""The metrics artifact of SPEC §6: assembled from engine results, written as strict JSON."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from riskcov.bootstrap import interval, std_error
from riskcov.engine import Results, Series
from riskcov.errors import UsageError


def loss_entry(name: str, score_range: int) -> dict[str, Any]:
    """The artifact's loss block; abs_norm divides by the experiment's score range (3 for PHQ-8).

    >>> loss_entry("abs_norm", 3)
    {'name': 'abs_norm', 'definition': 'abs(pred - gt) / 3', 'raw_multiplier': 3}
    """
    if name == "abs_norm":
        return {"name": name, "definition": f"abs(pred - gt) / {score_range}",
                "raw_multiplier": score_range}
    return {"name": name, "definition": "abs(pred - gt)", "raw_multiplier": 1}


LOSSES = ("abs", "abs_norm")
# scalars with a bootstrap CI: the schema's, then extra keys (SPEC §6 allows additions)
CI_SCALARS = ("aurc_full", "augrc_full", "aurc_at_c", "augrc_at_c", "cmax")
CI_EXTRA = ("aurc_optimal", "augrc_optimal", "eaurc", "eaugrc")
DELTAS = ("aurc_full", "augrc_full", "cmax")
DELTAS_EXTRA = ("aurc_at_c", "augrc_at_c")


def grid_key(c: float) -> str:
    """The artifact's key of a coverage (or alpha) value.

    >>> grid_key(0.1)
    '0.10'
    """
    return f"{c:.2f}"


def _value(arr: np.ndarray[Any, Any], sid: int) -> float | None:
    v = float(arr[sid, 0])
    return None if math.isnan(v) else v


def _pct(num: float, den: float) -> float:
    return num / den * 100 if den != 0 else 0.0


def series_metrics(res: Results, s: Series, *, area_c: float, grid: list[float],
                   alphas: list[float], bootstrap: dict[str, Any] | None) -> dict[str, Any]:
    """METRICS of SPEC §6 for one series (bootstrap: {seed, n_resamples} or None)."""
    sc, i = res.scalars, s.index
    v = {k: float(sc[k][i, 0]) for k in (*CI_SCALARS, *CI_EXTRA)}
    curve = {k: v for k, v in res.curves[i].items() if k != "plateau"}
    achievable = res.achievable.get(i, 0.0)  # no hull: no working point (K = 0)
    used = min(area_c, v["cmax"])
    mae: dict[str, Any] = {}
    for c in grid:
        val = _value(sc[f"mae@{c!r}"], i)
        mae[grid_key(c)] = None if val is None else {
            "requested": c, "achieved": _value(sc[f"mae_achieved@{c!r}"], i), "value": val}
    car = {grid_key(a): {"alpha": a, "coverage": float(sc[f"car_coverage@{a!r}"][i, 0]),
                         "risk": _value(sc[f"car_risk@{a!r}"], i),
                         "threshold": _value(sc[f"car_threshold@{a!r}"], i)} for a in alphas}
    out: dict[str, Any] = {
        "cmax": v["cmax"], "aurc_full": v["aurc_full"], "augrc_full": v["augrc_full"],
        "aurc_optimal": v["aurc_optimal"], "augrc_optimal": v["augrc_optimal"],
        "eaurc": v["eaurc"], "eaugrc": v["eaugrc"], "aurc_achievable": achievable,
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
    if bootstrap:
        ci: dict[str, Any] = {}
        se: dict[str, Any] = {}
        for k in (*CI_SCALARS, *CI_EXTRA):
            ci[k] = interval(v[k], sc[k][i, 1:])[0]
            se[k] = std_error(v[k], sc[k][i, 1:])
        ci_mae, drop_mae, se_mae = {}, {}, {}
        for c in grid:
            point, reps = _value(sc[f"mae@{c!r}"], i), sc[f"mae@{c!r}"][i, 1:]
            ci_mae[grid_key(c)], drop_mae[grid_key(c)] = interval(point, reps)
            se_mae[grid_key(c)] = std_error(point, reps)
        ci["mae_at_coverage"] = ci_mae
        se["mae_at_coverage"] = se_mae
        ci["coverage_at_risk"] = {
            grid_key(a): interval(car[grid_key(a)]["coverage"], sc[f"car_coverage@{a!r}"][i, 1:])[0]
            for a in alphas}
        out["bootstrap"] = {**bootstrap, "ci95": ci, "drop_rate": {"mae_at_coverage": drop_mae},
                            "std_error": se}
    return out


def deltas(res: Results, left: Series, right: Series, grid: list[float],
           bootstrapped: bool) -> dict[str, Any]:
    """Paired deltas right - left, each replicate drawing the same participants for both."""
    out: dict[str, Any] = {}
    names = [(n, n) for n in (*DELTAS, *DELTAS_EXTRA)] + [
        (f"mae_at_coverage_{grid_key(c)}", f"mae@{c!r}") for c in grid]
    for key, name in names:
        arr = res.scalars[name]
        d = arr[right.index] - arr[left.index]
        point = None if math.isnan(d[0]) else float(d[0])
        # without resamples the CI collapses to the point (fixtures README)
        unresampled = None if point is None else [point, point]
        ci = interval(point, d[1:])[0] if bootstrapped else unresampled
        out[key] = {"delta": point, "ci95": ci}
    return out


def dumps(artifact: dict[str, Any]) -> str:
    """Strict JSON: a NaN or Infinity is a bug, never written (json raises ValueError)."""
    return json.dumps(artifact, indent=2, allow_nan=False)


def utc_now() -> str:
    """created_at: UTC with a Z suffix."""
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def write(artifact: dict[str, Any], path: Path) -> None:
    """Write atomically: a failed run leaves no half artifact behind."""
    text = dumps(artifact) + "\n"
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text)
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise UsageError(f"--output {path}: cannot write the artifact: {exc.strerror}") from None
