"""Several risks certified at once (docs/metrics-extended.md, after MAPIE's multi-risk Learn-then-
Test): a threshold's p-value for "some risk is above its level" is the largest of the per-risk
p-values, each with its own effective sample size."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from riskcov.riskcontrol.bounds import p_value

if TYPE_CHECKING:
    from riskcov.riskcontrol.working_points import Points

RISKS = ("selective", "generalized", "coverage_loss")


class RiskP(NamedTuple):
    """One risk's test at a threshold: its kind and level, the n it is tested with, its p-value."""

    risk: str
    level: float
    n: int
    p_value: float


def risk_ps(
    bound: str, loss: float, k: int, n_total: int, alpha: float, extra: tuple[tuple[str, float], ...] = ()
) -> tuple[RiskP, ...]:
    """The p-value of "risk > level" of each risk at a threshold accepting k of n_total cal
    samples with loss sum `loss`: first the selective risk at alpha (tested with n = k; p = 1
    when nothing is accepted), then each extra risk: `selective` likewise, `generalized` (the
    accepted loss over all n_total samples, n = n_total), `coverage_loss` (the share rejected,
    1 - coverage: n_total - k losses of 1 among n_total).

    >>> [(r.risk, r.n, round(r.p_value, 12)) for r in risk_ps("hoeffding", 0.0, 90, 100, 0.1,
    ...                                                        (("coverage_loss", 0.3),))]
    [('selective', 90, 0.165298888222), ('coverage_loss', 100, 0.000335462628)]
    """
    out = [RiskP("selective", alpha, k, p_value(bound, loss, k, alpha) if k else 1.0)]
    for kind, level in extra:
        if kind == "selective":
            out.append(RiskP(kind, level, k, p_value(bound, loss, k, level) if k else 1.0))
        elif kind == "generalized":
            out.append(RiskP(kind, level, n_total, p_value(bound, loss, n_total, level)))
        else:
            out.append(RiskP(kind, level, n_total, p_value(bound, float(n_total - k), n_total, level)))
    return tuple(out)


def family_p(
    bound: str, loss: float, k: int, n_total: int, alpha: float, extra: tuple[tuple[str, float], ...] = ()
) -> float:
    """The p-value of "some risk is above its level" (risk_ps' arguments): the largest of the
    per-risk p-values.

    >>> round(family_p("hoeffding", 0.0, 90, 100, 0.1, (("coverage_loss", 0.3),)), 12)  # exp(-1.8)
    0.165298888222
    >>> family_p("hoeffding", 0.0, 50, 100, 0.1, (("coverage_loss", 0.3),))  # half rejected > 0.3
    1.0
    """
    return combined(risk_ps(bound, loss, k, n_total, alpha, extra))


def combined(ps: tuple[RiskP, ...]) -> float:
    """The family's p-value from its risks' (the largest)."""
    return max(r.p_value for r in ps)


def p_at(
    half: Points,
    whole: Points,
    cands: tuple[int, ...],
    bound: str,
    alpha: float,
    extra: tuple[tuple[str, float], ...],
) -> tuple[tuple[RiskP, ...], ...]:
    """The per-risk p-values of a half of the cal samples at the candidates' thresholds."""
    out = []
    for i in cands:
        at = int(np.searchsorted(-half.threshold, -whole.threshold[i], side="right")) - 1
        k, loss = (0, 0.0) if at < 0 else (int(half.k_cum[at]), float(half.loss_cum[at]))
        out.append(risk_ps(bound, loss, k, half.n_total, alpha, extra))
    return tuple(out)
