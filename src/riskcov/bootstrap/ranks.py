"""Rank stability of CSFs over bootstrap replicates (docs/metrics-extended.md, after fd-shifts'
bootstrap ranking protocol): each CSF's distribution of ranks by a metric over the same
replicates, and for each pair the shares of replicates where one beats the other with a
Holm-adjusted two-sided bootstrap p-value."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np

FloatArray = np.ndarray[Any, np.dtype[np.float64]]


def ranks(values: FloatArray) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Rank of each row (CSF) per column (replicate), lower value first; ties share the better
    rank (1 + the number of strictly lower values).

    >>> ranks(np.array([[0.2, 0.1], [0.1, 0.1], [0.3, 0.0]])).tolist()
    [[2, 2], [1, 2], [3, 1]]
    """
    lower: np.ndarray[Any, np.dtype[np.int64]] = (values[None, :, :] < values[:, None, :]).sum(axis=1)
    return 1 + lower


def two_sided_p(diff: FloatArray) -> float:
    """Bootstrap p-value of "no difference" from the replicates' differences: twice the smaller
    share of replicates on either side of 0 (ties counted on both), at most 1; the smallest
    level at which the percentile interval of the difference excludes 0.

    >>> two_sided_p(np.array([1.0, 2.0, 3.0, -1.0])), two_sided_p(np.array([0.0, 1.0]))
    (0.5, 1.0)
    """
    le, ge = float(np.mean(diff <= 0)), float(np.mean(diff >= 0))
    return min(1.0, 2.0 * min(le, ge))


def holm(p: list[float]) -> list[float]:
    """Holm's step-down adjustment: the i-th smallest of M p-values times (M - i + 1), made
    non-decreasing in that order, at most 1.

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    m = len(p)
    order = sorted(range(m), key=lambda i: (p[i], i))
    out = [0.0] * m
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p[i]))
        out[i] = running
    return out


def rank_stability(names: list[str], values: FloatArray, metric: str) -> dict[str, Any]:
    """The artifact's rank_stability block: `values` [CSF, replicate] of `metric` (replicates
    where any CSF's value is undefined are dropped)."""
    kept = values[:, ~np.isnan(values).any(axis=0)]
    m, b = kept.shape
    r = ranks(kept)
    shares = {
        name: [float(np.mean(r[i] == k)) if b else 0.0 for k in range(1, m + 1)]
        for i, name in enumerate(names)
    }
    pairs: list[dict[str, Any]] = []
    for i, j in combinations(range(m), 2):
        diff = kept[i] - kept[j]
        pairs.append(
            {
                "a": names[i],
                "b": names[j],
                "a_better": float(np.mean(diff < 0)) if b else 0.0,
                "b_better": float(np.mean(diff > 0)) if b else 0.0,
                "p_value": two_sided_p(diff) if b else 1.0,
            }
        )
    for pair, adjusted in zip(pairs, holm([p["p_value"] for p in pairs]), strict=True):
        pair["p_holm"] = adjusted
    return {"metric": metric, "n_replicates": b, "ranks": shares, "pairs": pairs}
