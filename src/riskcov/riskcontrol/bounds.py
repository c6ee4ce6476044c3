"""The exact binomial lower tail and the p-values for "risk > alpha" of docs/risk-control.md.

Every p-value takes the *loss sum* of the k accepted samples (not its mean), so the
binomial bounds can read an integer error count from it without a float product k·r̂.
k = 0 gives p = 1: accepting nothing certifies nothing.

>>> round(binom_cdf(1, 10, 0.1), 12)  # 0.9^10 + 10 * 0.1 * 0.9^9
0.7360989291
>>> p_value("binomial", 1.0, 10, 0.1) == binom_cdf(1, 10, 0.1)
True
>>> p_value("hoeffding-bentkus", 0.0, 0, 0.1)
1.0
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from riskcov.errors import InputError, UsageError
from riskcov.metrics.budgets import refuse_outside

FloatArray = np.ndarray[Any, np.dtype[np.float64]]

BOUNDS = ("binomial", "hoeffding", "hoeffding-bentkus")

# stirlerr(n) = ln n! - (n + ½)·ln n + n - ½·ln 2π for n = 0..15 (Loader 2000; checked to 28
# digits with decimal), where the asymptotic series below is not yet accurate to 1 ulp
_STIRLERR_SMALL = np.array(
    [
        0.0,
        0.08106146679532726,
        0.0413406959554093,
        0.02767792568499834,
        0.020790672103765093,
        0.016644691189821193,
        0.013876128823070748,
        0.01189670994589177,
        0.010411265261972096,
        0.009255462182712733,
        0.00833056343336287,
        0.007573675487951841,
        0.00694284010720953,
        0.006408994188004207,
        0.0059513701127588475,
        0.005554733551962801,
    ]
)
_S0, _S1, _S2, _S3, _S4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
_LN_2PI = math.log(2 * math.pi)
_FULL_SUM = 4096  # below this many terms summing them all is cheaper than finding the window
# a loss sum this close (relative) to a whole number is that number: 0.1 added 30 times is
# 3.0000000000000004, and a sum of losses on a 1/m grid is at least 1/m from the next integer
_COUNT_TOLERANCE = 1e-9


def _stirlerr(n: FloatArray) -> FloatArray:
    """Stirling's error term for integer-valued n ≥ 1, table then series."""
    out = np.empty_like(n)
    small = n <= 15
    out[small] = _STIRLERR_SMALL[n[small].astype(np.int64)]
    big = n[~small]
    nn = big * big
    out[~small] = (_S0 - (_S1 - (_S2 - (_S3 - _S4 / nn) / nn) / nn) / nn) / big
    return out


def _bd0(x: FloatArray, m: FloatArray) -> FloatArray:
    """x·ln(x/m) + m - x (0 at x = 0: 0·ln 0 = 0), without the cancellation near x = m.

    Near m the value is the series (x+m)·v² + 2x·Σ_j v^(2j+1)/(2j+1) with v = (x-m)/(x+m):
    for |v| < ½ thirty terms reach 0.25^30 ≈ 1e-18 and every term is at most a third of
    the previous one, so the sum keeps full relative precision (Loader's bd0, wider band).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x == 0, m, x * np.log(x / m) + m - x)
    near = np.abs(x - m) < 0.5 * (x + m)
    if near.any():
        xn, mn = x[near], m[near]
        v = (xn - mn) / (xn + mn)
        s = (xn - mn) * v
        term = 2 * xn * v
        v2 = v * v
        for j in range(1, 31):
            term = term * v2
            s = s + term / (2 * j + 1)
        out[near] = s
    return out


def _log_pmf(x: FloatArray, n: int, p: float) -> FloatArray:
    """ln P(Binomial(n, p) = x) for integer-valued 0 ≤ x ≤ n and 0 < p < 1 (Loader's form).

    n·p and n·(1 - p) are rounded; their exact rounding errors (from Fraction) enter as a
    first-order correction of bd0, which otherwise costs |x - n·p|·1e-16 in the log.
    """
    q = 1.0 - p
    m, mq = n * p, n * q
    m_lo = float(Fraction(n) * Fraction(p) - Fraction(m))
    mq_lo = float(Fraction(n) * (1 - Fraction(p)) - Fraction(mq))
    out = np.empty_like(x)
    inner = (x > 0) & (x < n)
    xi = x[inner]
    rest = n - xi
    nn = np.full_like(xi, float(n))
    lc = (
        _stirlerr(nn)
        - _stirlerr(xi)
        - _stirlerr(rest)
        - (_bd0(xi, np.full_like(xi, m)) + m_lo * (1.0 - xi / m))
        - (_bd0(rest, np.full_like(xi, mq)) + mq_lo * (1.0 - rest / mq))
    )
    lf = _LN_2PI + np.log(xi) + np.log1p(-xi / n)
    out[inner] = lc - 0.5 * lf
    out[x == 0] = n * math.log1p(-p)
    out[x == n] = n * math.log(p)
    return out


def binom_cdf(k_successes: int, n: int, p: float) -> float:
    """P(Binomial(n, p) ≤ k_successes), summing Loader's saddle-point pmf terms.

    Each term is accurate to about 1e-15 relative (1e-13 at the edge of underflow) and
    the sum is correctly rounded (math.fsum), so the tail holds that accuracy for any n
    the memory allows (k + 1 terms).

    >>> round(binom_cdf(0, 3, 0.5), 15), binom_cdf(-1, 3, 0.5), binom_cdf(3, 3, 0.5)
    (0.125, 0.0, 1.0)
    """
    if n < 0 or not 0.0 <= p <= 1.0:
        raise ValueError(f"binom_cdf needs n >= 0 and 0 <= p <= 1, got n={n}, p={p}")
    if k_successes < 0:
        return 0.0
    if k_successes >= n or p == 0.0:
        return 1.0
    if p == 1.0:
        return 0.0
    lo, hi = _window(k_successes, n, p)
    terms = np.exp(_log_pmf(np.arange(lo, hi + 1, dtype=np.float64), n, p))
    return min(1.0, math.fsum(terms.tolist()))


def _window(k: int, n: int, p: float) -> tuple[int, int]:
    """The terms of P(X <= k) that matter: those within e^-60 of the largest one.

    The pmf is log-concave, so it rises to the mode ⌊(n+1)p⌋ and falls after it; a grid
    of ~1000 points over [0, k] brackets where it crosses e^-60 times the top kept term.
    Every term left out is below that, and there are at most n + 1 of them, so the
    relative error from the cut is below (n+1)·e^-60 ≈ 1e-20 at n = 10^6.
    """
    if k < _FULL_SUM:
        return 0, k
    top = min(k, math.floor((n + 1) * p))
    grid = np.unique(np.append(np.round(np.linspace(0.0, k, 1025)), float(top)))
    logs = _log_pmf(grid, n, p)
    low = logs < logs[grid == top][0] - 60.0
    below = grid[low & (grid < top)]
    above = grid[low & (grid > top)]
    return (int(below[-1]) if below.size else 0), (int(above[0]) if above.size else k)


def _h(a: float, b: float) -> float:
    """h(a, b) = a·ln(a/b) + (1 - a)·ln((1 - a)/(1 - b)), 0·ln 0 = 0, for 0 ≤ a ≤ b < 1.

    Each log goes through log1p when its ratio is near 1, so h keeps ~1e-16·|a - b|
    absolute error and k·h stays accurate where exp(-k·h) is a p-value of interest.
    """
    if a == 0.0:
        return -math.log1p(-b)
    first = a * (math.log1p((a - b) / b) if abs(a - b) < 0.5 * b else math.log(a / b))
    second = (
        0.0
        if a == 1.0
        else (1.0 - a)
        * (
            math.log1p((b - a) / (1.0 - b))
            if abs(b - a) < 0.5 * (1.0 - b)
            else math.log((1.0 - a) / (1.0 - b))
        )
    )
    return max(first + second, 0.0)


def check_level(name: str, value: float) -> None:
    """Refuse a level (alpha, δ) outside (0, 1): a UsageError naming the flag.

    >>> check_level("alpha", 1.5)
    Traceback (most recent call last):
    ...
    riskcov.errors.UsageError: --alpha 1.5 is outside (0, 1)
    """
    refuse_outside(f"--{name}", value, strict=True)


def check_losses(losses: FloatArray, bound: str) -> None:
    """Refuse losses a bound cannot take: outside [0, 1], or not 0/1 for `binomial`.

    One line naming the first offending sample (by position); the caller adds which
    method and seed it came from.

    >>> check_losses(np.array([0.0, 0.5]), "binomial")
    Traceback (most recent call last):
    ...
    riskcov.errors.InputError: loss 0.5 at sample 1 is not 0 or 1, which the binomial bound needs
    """
    values = np.asarray(losses, dtype=np.float64)
    bad = np.flatnonzero(~((values >= 0.0) & (values <= 1.0)))
    if bad.size:
        i = int(bad[0])
        raise InputError(
            f"loss {float(values[i])!r} at sample {i} is outside [0, 1], which risk control needs"
        )
    if bound == "binomial":
        bad = np.flatnonzero((values != 0.0) & (values != 1.0))
        if bad.size:
            i = int(bad[0])
            raise InputError(
                f"loss {float(values[i])!r} at sample {i} is not 0 or 1, which the binomial bound needs"
            )


def _check_sum(loss_sum: float, k: int) -> None:
    if k < 0:
        raise ValueError(f"accepted count must be >= 0, got {k}")
    if not -_COUNT_TOLERANCE <= loss_sum <= k * (1.0 + _COUNT_TOLERANCE) + _COUNT_TOLERANCE:
        raise InputError(
            f"accepted loss sum {loss_sum!r} over {k} samples is outside [0, {k}]: "
            "risk control needs losses in [0, 1]"
        )


def _near_count(loss_sum: float) -> int | None:
    r = round(loss_sum)
    return int(r) if abs(loss_sum - r) <= _COUNT_TOLERANCE * max(1.0, abs(loss_sum)) else None


def error_count(loss_sum: float) -> int:
    """The whole number of errors a 0/1 loss sum stands for (float noise forgiven).

    >>> error_count(sum([0.1] * 30) * 10)
    30
    """
    count = _near_count(loss_sum)
    if count is None:
        raise InputError(
            f"accepted loss sum {loss_sum!r} is not a whole count: the binomial bound needs 0/1 losses"
        )
    return count


def ceil_count(loss_sum: float) -> int:
    """⌈loss_sum⌉, reading a sum within float noise of a whole number as that number.

    >>> ceil_count(sum([0.1] * 30)), ceil_count(7 / 3)
    (3, 3)
    """
    count = _near_count(loss_sum)
    return count if count is not None else math.ceil(loss_sum)


def p_binomial(n_errors: int, k: int, alpha: float) -> float:
    """P(Binomial(k, alpha) ≤ n_errors): the exact p-value for 0/1 losses; 1 when k = 0.

    >>> p_binomial(0, 10, 0.5) == 0.5 ** 10
    True
    """
    check_level("alpha", alpha)
    if not 0 <= n_errors <= k:
        raise InputError(f"{n_errors} errors among {k} accepted samples is impossible")
    return binom_cdf(n_errors, k, alpha)


def p_hoeffding(loss_sum: float, k: int, alpha: float) -> float:
    """exp(-2k·max(alpha - r̂, 0)²) with r̂ = loss_sum / k; 1 when k = 0.

    >>> p_hoeffding(0.0, 50, 0.1) == math.exp(-1.0)
    True
    """
    check_level("alpha", alpha)
    _check_sum(loss_sum, k)
    if k == 0:
        return 1.0
    gap = max(alpha - loss_sum / k, 0.0)
    return math.exp(-2.0 * k * gap * gap)


def p_hoeffding_bentkus(loss_sum: float, k: int, alpha: float) -> float:
    """min(exp(-k·h(min(r̂, alpha), alpha)), e·P(Binomial(k, alpha) ≤ ⌈k·r̂⌉)); 1 when k = 0.

    k·r̂ is the loss sum itself, so ⌈k·r̂⌉ is `ceil_count(loss_sum)`: no float product.

    >>> round(p_hoeffding_bentkus(0.0, 10, 0.1), 15) == round(0.9 ** 10, 15)  # h(0, alpha) = -ln(1 - alpha)
    True
    """
    check_level("alpha", alpha)
    _check_sum(loss_sum, k)
    if k == 0:
        return 1.0
    r_hat = loss_sum / k
    hoeffding = math.exp(-k * _h(min(r_hat, alpha), alpha))
    bentkus = math.e * binom_cdf(ceil_count(loss_sum), k, alpha)
    return min(hoeffding, bentkus)


def p_value(bound: str, loss_sum: float, k: int, alpha: float) -> float:
    """The p-value for "risk > alpha" of k accepted samples with this loss sum, by bound name.

    >>> p_value("hoeffding", 0.0, 50, 0.1) == p_hoeffding(0.0, 50, 0.1)
    True
    """
    if bound == "binomial":
        _check_sum(loss_sum, k)
        return p_binomial(error_count(loss_sum), k, alpha)
    if bound == "hoeffding":
        return p_hoeffding(loss_sum, k, alpha)
    if bound == "hoeffding-bentkus":
        return p_hoeffding_bentkus(loss_sum, k, alpha)
    raise UsageError(f"unknown bound {bound!r}; expected one of {', '.join(BOUNDS)}")
