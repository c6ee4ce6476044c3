"""Several risks certified at once (docs/metrics-extended.md, after MAPIE's multi-risk Learn-then-
Test): a threshold's p-value for "some risk is above its level" is the largest of the per-risk
p-values, each with its own effective sample size."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from riskcov.riskcontrol.bounds import p_value

if TYPE_CHECKING:  # rules imports this module
    from riskcov.riskcontrol.rules import Points

RISKS = ("selective", "generalized", "coverage_loss")


def family_p(
    bound: str, loss: float, k: int, n_total: int, alpha: float, extra: tuple[tuple[str, float], ...] = ()
) -> float:
    """The p-value of "some risk is above its level" at a threshold accepting k of n_total cal
    samples with loss sum `loss`: the largest of the selective risk's at alpha (tested with
    n = k; 1 when nothing is accepted) and each extra risk's: `selective` likewise,
    `generalized` (the accepted loss over all n_total samples, n = n_total), `coverage_loss`
    (the share rejected, 1 - coverage: n_total - k losses of 1 among n_total).

    >>> round(family_p("hoeffding", 0.0, 90, 100, 0.1, (("coverage_loss", 0.3),)), 12)  # exp(-1.8)
    0.165298888222
    >>> family_p("hoeffding", 0.0, 50, 100, 0.1, (("coverage_loss", 0.3),))  # half rejected > 0.3
    1.0
    """
    ps = [p_value(bound, loss, k, alpha) if k else 1.0]
    for kind, level in extra:
        if kind == "selective":
            ps.append(p_value(bound, loss, k, level) if k else 1.0)
        elif kind == "generalized":
            ps.append(p_value(bound, loss, n_total, level))
        else:
            ps.append(p_value(bound, float(n_total - k), n_total, level))
    return max(ps)


def p_at(
    half: Points,
    whole: Points,
    cands: tuple[int, ...],
    bound: str,
    alpha: float,
    extra: tuple[tuple[str, float], ...],
) -> tuple[float, ...]:
    """The p-values of a half of the cal samples at the candidates' thresholds."""
    out = []
    for i in cands:
        at = int(np.searchsorted(-half.threshold, -whole.threshold[i], side="right")) - 1
        k, loss = (0, 0.0) if at < 0 else (int(half.k_cum[at]), float(half.loss_cum[at]))
        out.append(family_p(bound, loss, k, half.n_total, alpha, extra))
    return tuple(out)
