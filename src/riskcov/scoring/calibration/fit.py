"""Fitting calibrators (docs/calibration.md) with numpy alone, each to full precision.

- temperature scaling: the binary NLL of sigmoid(z·u), z = logit(clip(p)), u = 1/T, is convex in
  u, so its minimiser over T ∈ [0.05, 10] is the root of the derivative in u ∈ [0.1, 20], found
  by Newton steps kept inside a shrinking bisection bracket;
- logistic / Platt: Σ log-loss + ½‖w‖² (C = 1, intercept unpenalised) on standardised features,
  by damped Newton (the objective is strictly convex);
- ridge (`loss` target, identity link): ½Σ residual² + ½‖w‖² (alpha = 1), closed form;
- isotonic: non-decreasing least squares by pool adjacent violators, equal x pooled first, knots
  trimmed as scikit-learn's IsotonicRegression keeps them (the reference's format).

>>> round(fit_temperature(np.array([0.9, 0.9, 0.9, 0.9]), np.array([1, 1, 1, 0])), 12)
2.0
>>> fit_isotonic(np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.0, 1.0]))
Isotonic(x_thresholds=(0.0, 1.0, 2.0, 3.0), y_thresholds=(0.0, 0.5, 0.5, 1.0))
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from riskcov.errors import InputError, UsageError
from riskcov.scoring.calibration.artifact import (
    ONE_FEATURE,
    Calibrator,
    Isotonic,
    Linear,
    Method,
    Model,
    Target,
    Temperature,
)

Array = npt.NDArray[np.float64]
EPS = 1e-6  # probabilities are clipped to [EPS, 1 - EPS] before the logit
T_MIN, T_MAX = 0.05, 10.0


def default_value(name: str) -> float:
    """The value of a null or missing feature: 0.0 for similarities, 3.0 for confidences.

    >>> default_value("retrieval_similarity_mean"), default_value("verbalized_confidence")
    (0.0, 3.0)
    """
    if "similarity" in name:
        return 0.0
    if "confidence" in name:
        return 3.0  # the middle of the 1-5 verbalized scale
    return 0.0


def target_values(
    pred: npt.ArrayLike, gt: npt.ArrayLike, target: Target, *, loss_scale: float = 3.0
) -> Array:
    """The fitting target of each predicted item: correctness (abs error 0), near_correct (≤ 1),
    or loss (1 - abs/loss_scale; PHQ-8 scores span 3).

    >>> target_values([2, 2, 0], [2, 1, 3], "loss").tolist()
    [1.0, 0.6666666666666667, 0.0]
    """
    err: Array = np.abs(np.asarray(pred, dtype=np.float64) - np.asarray(gt, dtype=np.float64))
    out: Array
    if target == "correctness":
        out = (err == 0).astype(np.float64)
    elif target == "near_correct":
        out = (err <= 1).astype(np.float64)
    else:
        out = 1.0 - err / loss_scale
    return out


def _sigmoid(x: Array) -> Array:
    # exp of a non-positive argument only, so no overflow either way
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _binary(y: Array, what: str) -> Array:
    if y.size == 0:
        raise InputError(f"{what}: no items to fit on")
    if not np.all((y == 0) | (y == 1)):
        raise InputError(f"{what}: the target must be 0 or 1, got {float(y[(y != 0) & (y != 1)][0])!r}")
    return y


def fit_temperature(p: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """T ∈ [0.05, 10] minimising the binary NLL of sigmoid(logit(clip(p, 1e-6, 1 - 1e-6)) / T)."""
    p = np.asarray(p, dtype=np.float64)
    y = _binary(np.asarray(y, dtype=np.float64), "temperature scaling")
    bad = ~((p >= 0) & (p <= 1))
    if bad.any():
        raise InputError(
            f"temperature scaling needs probability-like values in [0, 1], got {float(p[bad][0])!r}"
        )
    c = np.clip(p, EPS, 1.0 - EPS)
    z = np.log(c / (1.0 - c))
    if not z.any():
        return 1.0  # every p is 1/2: the NLL does not depend on T

    def slope(u: float) -> float:  # d/du of Σ [softplus(z·u) - y·z·u]
        return float(np.sum(z * (_sigmoid(z * u) - y)))

    lo, hi = 1.0 / T_MAX, 1.0 / T_MIN
    if slope(lo) >= 0:
        return T_MAX
    if slope(hi) <= 0:
        return T_MIN
    u = 1.0
    for _ in range(200):
        g = slope(u)
        if g == 0:
            break
        if g > 0:
            hi = u
        else:
            lo = u
        s = _sigmoid(z * u)
        h = float(np.sum(z * z * s * (1.0 - s)))
        nxt = u - g / h if h > 0 else lo
        if not lo < nxt < hi:
            nxt = 0.5 * (lo + hi)  # Newton left the bracket: bisect instead
        if nxt == u or hi - lo <= 4 * np.spacing(hi):
            break
        u = nxt
    return min(max(1.0 / u, T_MIN), T_MAX)


def fit_scaler(x: npt.ArrayLike) -> tuple[Array, Array]:
    """Column means and population standard deviations (ddof 0, like StandardScaler), 0 → 1."""
    x = np.asarray(x, dtype=np.float64)
    std = x.std(axis=0)
    return x.mean(axis=0), np.where(std == 0, 1.0, std)


def _design(x: npt.ArrayLike) -> tuple[Array, Array, Array]:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] == 0:
        raise InputError("calibration: no items to fit on")
    mean, std = fit_scaler(x)
    z = (x - mean) / std
    return np.hstack([np.ones((x.shape[0], 1)), z]), mean, std


def _logistic_objective(a: Array, y: Array, theta: Array) -> float:
    eta = a @ theta
    softplus = np.maximum(eta, 0) + np.log1p(np.exp(-np.abs(eta)))
    return float(np.sum(softplus - y * eta) + 0.5 * theta[1:] @ theta[1:])


def fit_logistic(x: npt.ArrayLike, y: npt.ArrayLike) -> Linear:
    """Minimise Σ log-loss + ½‖w‖² (intercept unpenalised) on standardised features."""
    a, mean, std = _design(x)
    y = _binary(np.asarray(y, dtype=np.float64), "logistic calibration")
    if y.min() == y.max():
        # the unpenalised intercept would run off to ±infinity
        raise InputError(f"logistic calibration needs both outcomes; all {y.size} items are {int(y[0])}")
    penalty = np.ones(a.shape[1])
    penalty[0] = 0.0
    theta = np.zeros(a.shape[1])
    for _ in range(100):
        s = _sigmoid(a @ theta)
        grad = a.T @ (s - y) + penalty * theta
        hess = (a.T * (s * (1.0 - s))) @ a + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        decrement = float(grad @ step)
        t = 1.0
        # far from the optimum, halve until Armijo holds; near it (a tiny Newton decrement) the
        # full step is safe and objective values are too close to compare in floating point
        if decrement > 1e-10:
            f = _logistic_objective(a, y, theta)
            while t > 1e-10 and _logistic_objective(a, y, theta - t * step) > f - 1e-4 * t * decrement:
                t *= 0.5
        theta = theta - t * step
        if np.max(np.abs(t * step)) <= 1e-14 * (1.0 + np.max(np.abs(theta))):
            break
    return Linear(
        tuple(theta[1:].tolist()), float(theta[0]), "sigmoid", tuple(mean.tolist()), tuple(std.tolist())
    )


def fit_ridge(x: npt.ArrayLike, y: npt.ArrayLike, alpha: float = 1.0) -> Linear:
    """Minimise ½Σ(y - b - w·z)² + ½·alpha·‖w‖² (intercept unpenalised) on standardised features."""
    a, mean, std = _design(x)
    y = np.asarray(y, dtype=np.float64)
    penalty = np.full(a.shape[1], alpha)
    penalty[0] = 0.0
    theta = np.linalg.solve(a.T @ a + np.diag(penalty), a.T @ y)
    return Linear(
        tuple(theta[1:].tolist()), float(theta[0]), "identity", tuple(mean.tolist()), tuple(std.tolist())
    )


def fit_isotonic(x: npt.ArrayLike, y: npt.ArrayLike) -> Isotonic:
    """Non-decreasing least-squares fit of y on x as knots (x_thresholds, y_thresholds)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.size == 0:
        raise InputError("isotonic calibration: no items to fit on")
    order = np.lexsort((y, x))
    xs, ys = x[order], y[order]
    ux, start, counts = np.unique(xs, return_index=True, return_counts=True)
    # items sharing an x are one point, weighted by their count, at their mean
    sums: list[float] = np.add.reduceat(ys, start).tolist()
    blocks: list[list[float]] = []  # [weighted sum, weight, number of points]
    for total, w in zip(sums, counts.tolist(), strict=True):
        blocks.append([total, float(w), 1.0])
        # pool while the previous block's mean is not below the last one's (equal means too)
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            last = blocks.pop()
            blocks[-1] = [blocks[-1][0] + last[0], blocks[-1][1] + last[1], blocks[-1][2] + last[2]]
    fitted = np.repeat([b[0] / b[1] for b in blocks], [int(b[2]) for b in blocks])
    # keep a knot unless it equals both neighbours (scikit-learn's X_thresholds_)
    keep = np.ones(fitted.size, dtype=bool)
    keep[1:-1] = (fitted[1:-1] != fitted[:-2]) | (fitted[1:-1] != fitted[2:])
    return Isotonic(tuple(ux[keep].tolist()), tuple(fitted[keep].tolist()))


def fit(
    method: Method,
    features: Sequence[str],
    target: Target,
    x: npt.ArrayLike,
    y: npt.ArrayLike,
) -> Calibrator:
    """Fit `method` on the feature matrix x (one column per feature) against target values y.

    platt/logistic on the `loss` target is ridge regression with an identity link.

    >>> fit("temperature_scaling", ["a", "b"], "correctness", [[0.5, 0.5]], [1]).method
    Traceback (most recent call last):
      ...
    riskcov.errors.UsageError: --method temperature_scaling takes exactly one feature, got 2
    """
    if method in ONE_FEATURE and len(features) != 1:
        raise UsageError(f"--method {method} takes exactly one feature, got {len(features)}")
    if not features:
        raise UsageError(f"--method {method} needs at least one feature")
    if method == "temperature_scaling" and target == "loss":
        raise UsageError("--method temperature_scaling needs a binary target, not loss")
    xm = np.asarray(x, dtype=np.float64)
    if xm.ndim != 2 or xm.shape[1] != len(features):
        raise ValueError(f"x has shape {xm.shape}; expected one column per feature")
    model: Model
    if method == "temperature_scaling":
        model = Temperature(fit_temperature(xm[:, 0], y))
    elif method == "isotonic":
        model = fit_isotonic(xm[:, 0], y)
    elif target == "loss":
        model = fit_ridge(xm, y)
    else:
        model = fit_logistic(xm, y)
    return Calibrator(method, tuple(features), target, model)
