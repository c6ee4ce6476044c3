"""Bootstrap summaries (docs/metrics.md): percentile CIs, drop rates and standard errors of the kept
replicates, per metric and for paired deltas."""

from __future__ import annotations

from typing import Any

import numpy as np

FloatArray = np.ndarray[Any, np.dtype[np.float64]]


def interval(point: float | None, replicates: FloatArray) -> tuple[list[float] | None, float]:
    """ci95 and drop rate of one metric: NaN replicates are dropped (docs/metrics.md).

    >>> interval(0.5, np.array([0.0, 1.0, np.nan, 2.0]))
    ([0.05, 1.95], 0.25)
    """
    b = len(replicates)
    kept = replicates[~np.isnan(replicates)]
    drop = 1.0 - (len(kept) / b) if b > 0 else 0.0
    if point is None:
        return None, 1.0
    if len(kept) < 2:
        return [float(point), float(point)], drop
    lo, hi = np.percentile(kept, [2.5, 97.5])
    return [float(lo), float(hi)], drop


def std_error(point: float | None, replicates: FloatArray) -> float | None:
    """Sample standard deviation (ddof = 1) of the kept replicates; 0 with fewer than 2.

    >>> std_error(0.5, np.array([1.0, 2.0, np.nan, 3.0]))
    1.0
    """
    if point is None:
        return None
    kept = replicates[~np.isnan(replicates)]
    return float(np.std(kept, ddof=1)) if len(kept) >= 2 else 0.0


def summarize(
    scalars: dict[str, tuple[float | None, FloatArray]],
    mae: dict[str, tuple[float | None, FloatArray]],
    coverage_at_risk: dict[str, tuple[float | None, FloatArray]],
    meta: dict[str, Any],
) -> dict[str, Any]:
    """The artifact's `bootstrap` block of one series: ci95, drop rates and std_error of every
    scalar, MAE@coverage and Coverage@Risk key, from (point estimate, replicates) pairs."""
    ci: dict[str, Any] = {k: interval(p, r)[0] for k, (p, r) in scalars.items()}
    se: dict[str, Any] = {k: std_error(p, r) for k, (p, r) in scalars.items()}
    ci_mae, drop_mae, se_mae = {}, {}, {}
    for k, (p, r) in mae.items():
        ci_mae[k], drop_mae[k] = interval(p, r)
        se_mae[k] = std_error(p, r)
    ci["mae_at_coverage"] = ci_mae
    se["mae_at_coverage"] = se_mae
    ci["coverage_at_risk"] = {k: interval(p, r)[0] for k, (p, r) in coverage_at_risk.items()}
    return {**meta, "ci95": ci, "drop_rate": {"mae_at_coverage": drop_mae}, "std_error": se}


def paired(point: float | None, replicates: FloatArray, bootstrapped: bool) -> dict[str, Any]:
    """A paired delta and its CI; without resamples the CI collapses to the point (fixtures
    README), and an undefined delta has none.

    >>> paired(0.5, np.array([]), False)
    {'delta': 0.5, 'ci95': [0.5, 0.5]}
    """
    unresampled = None if point is None else [point, point]
    return {"delta": point, "ci95": interval(point, replicates)[0] if bootstrapped else unresampled}
