"""Threshold rules of docs/risk-control.md on one experiment's cal working points, applied on test.

A rule picks a cal working point (docs/metrics.md: one per distinct confidence, most confident
first) and its confidence becomes the test threshold; `None` means accept nothing.

>>> from riskcov.resources import resource_dir
>>> con = duckdb.connect()
>>> for name in ("rc_coverage_at_risks", "rc_coverage_at_risk"):
...     _ = con.execute((resource_dir("sql") / f"{name}.sql").read_text())
>>> pts = Points(np.array([0.9, 0.8, 0.7, 0.6]), np.array([1, 2, 3, 4]), np.array([0.0, 0.0, 1.0, 2.0]), 4)
>>> uncertified(con, pts, 0.35).threshold, crc(pts, 0.35).threshold
(0.7, 0.8)
>>> apply(0.7, np.array([0.95, 0.5]), np.array([1.0, 0.0]), np.array([False, False]))
Applied(coverage=0.5, risk=1.0, generalized_risk=0.5, accepted=1)
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

import duckdb
import numpy as np

from riskcov.errors import UsageError
from riskcov.riskcontrol import fwer
from riskcov.riskcontrol.bounds import BOUNDS, check_level
from riskcov.riskcontrol.multi_risk import RiskP, combined, p_at, risk_ps
from riskcov.riskcontrol.working_points import Points, check_samples
from riskcov.warehouse.duckdb_helpers import temp_table

FloatArray = np.ndarray[Any, np.dtype[np.float64]]
IntArray = np.ndarray[Any, np.dtype[np.int64]]
BoolArray = np.ndarray[Any, np.dtype[np.bool_]]

PROCEDURES = ("fixed-sequence", "bonferroni", "holm", "split-fixed-sequence")


@dataclass(frozen=True)
class Choice:
    """A rule's pick: working point `index` (None: accept nothing) and its cal values.

    `candidates` and `p_values` are the tested points and their p-values (certify only);
    `risk_p_values` each candidate's per-risk p-values (multi_risk.RiskP), p_values' parts.
    """

    index: int | None
    threshold: float | None
    coverage: float
    risk: float
    generalized_risk: float
    candidates: tuple[int, ...] = ()
    p_values: tuple[float, ...] = ()
    rejected: tuple[bool, ...] = ()
    risk_p_values: tuple[tuple[RiskP, ...], ...] = ()


class Applied(NamedTuple):
    """A threshold on a test split: coverage = accepted / N, risk over the accepted."""

    coverage: float
    risk: float
    generalized_risk: float
    accepted: int


def _choice(
    points: Points,
    index: int | None,
    cands: tuple[int, ...] = (),
    ps: tuple[float, ...] = (),
    rejected: tuple[bool, ...] = (),
    per_risk: tuple[tuple[RiskP, ...], ...] = (),
) -> Choice:
    if index is None:
        return Choice(None, None, 0.0, 0.0, 0.0, cands, ps, rejected, per_risk)
    return Choice(
        index,
        float(points.threshold[index]),
        float(points.coverage[index]),
        float(points.risk[index]),
        float(points.loss_cum[index] / points.n_total),
        cands,
        ps,
        rejected,
        per_risk,
    )


def candidates(coverage: FloatArray, n_candidates: int) -> IntArray:
    """For g = 1..G the first point with coverage ≥ g/G; duplicates and targets > Cmax dropped.

    Compared in doubles, k/N ≥ g/G as docs/risk-control.md writes it: both sides are correctly rounded
    quotients, and two distinct ones differ by ≥ 1/(N·G), more than an ulp while
    N·G < 2^53, so the double comparison is the exact rational one.

    >>> candidates(np.array([0.1, 0.25, 0.3, 0.6]), 4).tolist()
    [1, 3]
    """
    if isinstance(n_candidates, bool) or n_candidates < 1:
        raise UsageError(f"--candidates must be a positive integer, got {n_candidates!r}")
    targets = np.arange(1, n_candidates + 1, dtype=np.float64) / n_candidates
    first = np.searchsorted(coverage, targets, side="left")
    return np.unique(first[first < len(coverage)]).astype(np.int64)


def certify(
    points: Points,
    alpha: float,
    delta: float,
    bound: str = "hoeffding-bentkus",
    procedure: str = "fixed-sequence",
    n_candidates: int = 20,
    split: tuple[Points, Points] | None = None,
    extra: tuple[tuple[str, float], ...] = (),
) -> Choice:
    """The certified threshold: the highest-coverage candidate whose "risk > alpha" null (with
    `extra` risks, (kind, level) of RISKS, every one of them: p = the largest, family_p) the
    procedure rejects at δ (riskcontrol/fwer.py): fixed-sequence (in order from the most
    conservative while p ≤ δ), bonferroni (p ≤ δ / #candidates), holm (step-down), or
    split-fixed-sequence, which needs `split`, the working points of the cal split's two
    halves: the first half's p-values order the candidates, the second half's are tested in
    that order (the candidates and the reported p-values are the second half's).

    >>> pts = Points(np.array([0.9, 0.8]), np.array([40, 80]), np.array([0.0, 8.0]), 80)
    >>> certify(pts, 0.1, 0.1, "binomial", n_candidates=2).index
    0
    """
    check_level("alpha", alpha)
    check_level("delta", delta)
    if bound not in BOUNDS:
        raise UsageError(f"unknown bound {bound!r}; expected one of {', '.join(BOUNDS)}")
    if procedure not in PROCEDURES:
        raise UsageError(f"unknown procedure {procedure!r}; expected one of {', '.join(PROCEDURES)}")
    cands = tuple(int(i) for i in candidates(points.coverage, n_candidates))
    if procedure == "split-fixed-sequence":
        if split is None:
            raise ValueError("split-fixed-sequence needs the working points of the two halves")
        first, per_risk = (p_at(half, points, cands, bound, alpha, extra) for half in split)
        ps = tuple(combined(r) for r in per_risk)
        rejected = fwer.split_fixed_sequence([combined(r) for r in first], ps, delta)
    else:
        per_risk = tuple(
            risk_ps(bound, float(points.loss_cum[i]), int(points.k_cum[i]), points.n_total, alpha, extra)
            for i in cands
        )
        ps = tuple(combined(r) for r in per_risk)
        test = {"fixed-sequence": fwer.fixed_sequence, "bonferroni": fwer.bonferroni, "holm": fwer.holm}
        rejected = test[procedure](ps, delta) if cands else []
    passed = [i for i, ok in zip(cands, rejected, strict=True) if ok]
    chosen = passed[-1] if passed else None  # candidates rise in coverage
    return _choice(points, chosen, cands, ps, tuple(rejected), per_risk)


def uncertified(con: duckdb.DuckDBPyConnection, points: Points, alpha: float) -> Choice:
    """Empirical Coverage@Risk(alpha) on cal (docs/metrics.md), read from the SQL macro
    rc_coverage_at_risk (installed on `con`): the point of the largest coverage whose selective
    risk L/k <= alpha; none (accept nothing) when no point qualifies.
    """
    check_level("alpha", alpha)
    j = len(points.threshold)
    temp_table(
        con,
        "_rc_cal_points",
        {
            "plateau": np.arange(1, j + 1, dtype=np.int64),
            "threshold": points.threshold,
            "coverage": points.coverage,
            "selective_risk": points.risk,
        },
        "0 AS series, 0 AS replicate, *",
    )
    try:
        rows = con.execute(
            "SELECT threshold FROM rc_coverage_at_risk('_rc_cal_points', ?) WHERE coverage IS NOT NULL",
            [alpha],
        ).fetchall()
    finally:
        con.execute("DROP TABLE IF EXISTS _rc_cal_points")
    # thresholds fall strictly along the points: the macro's threshold names one point
    return _choice(points, int(np.flatnonzero(points.threshold == rows[0][0])[0]) if rows else None)


def crc(points: Points, alpha: float, loss_bound: float = 1.0) -> Choice:
    """Conformal risk control: the last λ, walking down, with n/(n+1)·Ĝ(λ) + B/(n+1) ≤ alpha.

    Ĝ(λ) = loss_cum / n with n = points.n_total (abstentions included), so the condition
    is (loss_cum + B) ≤ alpha·(n + 1), evaluated exactly (Fractions of the given doubles), not
    in a rounding-dependent float form. loss_cum never falls, so the points passing form a
    prefix: "keep the last passing" and "stop at the first failure" pick the same point,
    found here by bisection.

    >>> crc(Points(np.array([0.9, 0.8]), np.array([1, 2]), np.array([0.0, 1.0]), 9), 0.15).index
    0
    """
    check_level("alpha", alpha)
    if not loss_bound > 0:
        raise UsageError(f"the loss bound B must be positive, got {loss_bound!r}")
    limit = Fraction(alpha) * (points.n_total + 1) - Fraction(loss_bound)

    def fails(i: int) -> bool:
        return Fraction(float(points.loss_cum[i])) > limit

    passing = bisect.bisect_left(range(len(points.threshold)), True, key=fails)
    return _choice(points, passing - 1 if passing else None)


def apply(
    threshold: float | None, confidences: FloatArray, losses: FloatArray, abstained: BoolArray
) -> Applied:
    """Accept non-abstained samples with confidence ≥ threshold (None: accept nothing).

    >>> apply(None, np.array([0.9]), np.array([1.0]), np.array([False]))
    Applied(coverage=0.0, risk=0.0, generalized_risk=0.0, accepted=0)
    """
    check_samples(confidences, losses, abstained)
    n = len(confidences)
    if threshold is None or n == 0:
        return Applied(0.0, 0.0, 0.0, 0)
    accept = ~abstained & (confidences >= threshold)
    k = int(np.count_nonzero(accept))
    total = math.fsum(losses[accept].tolist())
    return Applied(k / n, total / k if k else 0.0, total / n, k)
