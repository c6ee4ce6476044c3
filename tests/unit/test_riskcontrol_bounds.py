"""The binomial tail and the p-values of docs/risk-control.md against exact arithmetic.

Rational quantities (the binomial tail) are summed exactly with Fraction over the exact
value of the double p; the Hoeffding terms go through 50-digit decimal exp/ln.
"""

from __future__ import annotations

import functools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from riskcov.errors import InputError, UsageError
from riskcov.riskcontrol.bounds import (
    binom_cdf,
    ceil_count,
    check_level,
    check_losses,
    error_count,
    p_binomial,
    p_hoeffding,
    p_hoeffding_bentkus,
    p_value,
)

ALPHAS = [0.1, 3 / 20, 1 / 3]


@functools.cache
def _exact_prefix(n: int, p: float) -> tuple[list[int], int]:
    """Integer prefix sums of C(n, x)·a^x·c^(n-x) for p = a / (a + c) exactly, and (a + c)^n."""
    pf = Fraction(p)
    a, c = pf.numerator, pf.denominator - pf.numerator
    term, total, sums = c**n, 0, []
    for x in range(n + 1):
        total += term
        sums.append(total)
        if x < n:  # C(n, x+1)·a^(x+1)·c^(n-x-1) from the previous term, exactly
            term = term * (n - x) * a // ((x + 1) * c) if c else 0
    return sums, (a + c) ** n


def exact_cdf(k: int, n: int, p: float) -> Fraction:
    """P(Binomial(n, p) <= k) for the exact rational value of the double p."""
    if k < 0:
        return Fraction(0)
    sums, denominator = _exact_prefix(n, p)
    return Fraction(sums[min(k, n)], denominator)


def rel_err(got: float, exact: Fraction | Decimal) -> float:
    ex = Fraction(exact)
    return float(abs(Fraction(got) - ex) / ex) if ex else abs(got)


def dec(x: Fraction) -> Decimal:
    return Decimal(x.numerator) / Decimal(x.denominator)


def exact_h(a: Fraction, b: Fraction) -> Decimal:
    """The documented h(a, b) with 0·ln 0 = 0, in 50-digit decimals."""
    first = Decimal(0) if a == 0 else dec(a) * (dec(a) / dec(b)).ln()
    second = Decimal(0) if a == 1 else dec(1 - a) * (dec(1 - a) / dec(1 - b)).ln()
    return first + second


@pytest.mark.parametrize("p", [*ALPHAS, 0.5, 0.9, 1e-3])
def test_binom_cdf_is_the_exact_tail_for_n_up_to_30(p):
    for n in range(31):
        for k in range(-1, n + 2):
            assert rel_err(binom_cdf(k, n, p), exact_cdf(k, n, p)) <= 1e-12, (k, n, p)


@pytest.mark.parametrize(
    ("n", "p", "ks"),
    [
        (300, 0.1, [0, 3, 10, 25, 30, 31, 45, 80, 299]),
        (1000, 3 / 20, [0, 40, 100, 150, 151, 200, 600]),
    ],
)
def test_binom_cdf_keeps_relative_accuracy_deep_in_the_tail(n, p, ks):
    for k in ks:
        exact = exact_cdf(k, n, p)
        assert rel_err(binom_cdf(k, n, p), exact) <= 1e-12, (k, float(exact))


def test_binom_cdf_edges():
    assert binom_cdf(0, 5, 0.0) == 1.0
    assert binom_cdf(4, 5, 1.0) == 0.0
    assert binom_cdf(5, 5, 1.0) == 1.0
    assert binom_cdf(-1, 5, 0.0) == 0.0
    assert binom_cdf(7, 5, 0.3) == 1.0
    assert binom_cdf(0, 0, 0.3) == 1.0
    with pytest.raises(ValueError):
        binom_cdf(1, 5, 1.5)


@pytest.mark.parametrize("n", [10_000, 100_000, 1_000_000])
@pytest.mark.parametrize("p", [0.5, 0.25, 0.375])
def test_binom_cdf_complement_identity_at_large_n(n, p):
    # X ~ Bin(n, p) and n - X ~ Bin(n, 1 - p) (exact for these dyadic p), so
    # P(X <= k) + P(n - X <= n - k - 1) = 1 for every k
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    for z in (-6, -2, -0.5, 0, 0.5, 2, 6):
        k = int(mean + z * sd)
        total = binom_cdf(k, n, p) + binom_cdf(n - k - 1, n, 1 - p)
        assert total == pytest.approx(1.0, abs=1e-14), (k, total)


@settings(max_examples=examples(100), deadline=None)
@given(n=st.integers(1, 3000), p=st.floats(0.001, 0.999), data=st.data())
def test_binom_cdf_is_monotone_in_k_and_p(n, p, data):
    k = data.draw(st.integers(0, n - 1))
    q = data.draw(st.floats(p, 0.999))
    assert binom_cdf(k, n, p) <= binom_cdf(k + 1, n, p)
    assert binom_cdf(k, n, q) <= binom_cdf(k, n, p) * (1 + 1e-13)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_p_binomial_exact(alpha):
    for k in range(31):
        for errors in range(k + 1):
            exact = exact_cdf(errors, k, alpha)
            assert rel_err(p_binomial(errors, k, alpha), exact) <= 1e-12
            assert p_value("binomial", float(errors), k, alpha) == p_binomial(errors, k, alpha)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_p_hoeffding_exact(alpha):
    with localcontext() as ctx:
        ctx.prec = 50
        for k in range(1, 31):
            for thirds in range(3 * k + 1):
                loss_sum = thirds / 3
                gap = max(Fraction(alpha) - Fraction(loss_sum) / k, Fraction(0))
                exact = (-dec(2 * k * gap * gap)).exp()
                assert rel_err(p_hoeffding(loss_sum, k, alpha), exact) <= 1e-12, (k, thirds)
                assert p_value("hoeffding", loss_sum, k, alpha) == p_hoeffding(loss_sum, k, alpha)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_p_hoeffding_bentkus_exact(alpha):
    a_ = Fraction(alpha)
    with localcontext() as ctx:
        ctx.prec = 50
        for k in range(1, 31):
            # whole counts and one fractional sum per unit (x + 1/3): ⌈·⌉ then differs
            for thirds in [t for t in range(3 * k + 1) if t % 3 != 2]:
                loss_sum = thirds / 3
                r_hat = Fraction(loss_sum) / k
                hoeffding = (-k * exact_h(min(r_hat, a_), a_)).exp()
                ceil = math.ceil(Fraction(thirds, 3))  # ⌈k·r̂⌉ of the intended sum thirds/3
                bentkus = Decimal(1).exp() * dec(exact_cdf(ceil, k, alpha))
                exact = min(hoeffding, bentkus)
                got = p_hoeffding_bentkus(loss_sum, k, alpha)
                assert rel_err(got, exact) <= 1e-12, (k, thirds, got, float(exact))
                assert p_value("hoeffding-bentkus", loss_sum, k, alpha) == got


def test_hoeffding_bentkus_takes_the_smaller_term():
    # 0 errors in 40 at alpha 0.1: Hoeffding-type exp(-40·h(0, 0.1)) = 0.9^40 beats e·0.9^40;
    # at r̂ = alpha the first term is 1 and e·P(Bin(40, 0.1) <= 4) is 1.7, so p = 1
    assert p_hoeffding_bentkus(0.0, 40, 0.1) == pytest.approx(0.9**40, rel=1e-13)
    assert p_hoeffding_bentkus(4.0, 40, 0.1) == 1.0
    # 2 errors in 100: e·P(Bin(100, 0.1) <= 2) is below exp(-100·h(0.02, 0.1))
    exact_b = math.e * float(exact_cdf(2, 100, 0.1))
    assert exact_b < math.exp(-100 * float(exact_h(Fraction(1, 50), Fraction(0.1))))
    assert p_hoeffding_bentkus(2.0, 100, 0.1) == pytest.approx(exact_b, rel=1e-12)


@pytest.mark.parametrize("bound", ["binomial", "hoeffding", "hoeffding-bentkus"])
def test_nothing_accepted_certifies_nothing(bound):
    assert p_value(bound, 0.0, 0, 0.1) == 1.0


def test_a_loss_sum_with_float_noise_counts_as_the_whole_number():
    noisy = sum([0.1] * 30)
    assert noisy != 3.0  # the noise this guards against
    assert ceil_count(noisy) == 3
    assert ceil_count(3.0 + 1e-6) == 4
    assert ceil_count(7 / 3) == 3
    assert error_count(noisy * 10) == 30
    # at alpha 0.3 the Bentkus term wins with ⌈3⌉ = 3 but would lose with 4 (0.082 > 0.0305)
    assert p_hoeffding_bentkus(noisy, 30, 0.3) == pytest.approx(
        math.e * float(exact_cdf(3, 30, 0.3)), rel=1e-12
    )
    assert p_value("binomial", noisy, 30, 0.2) == p_binomial(3, 30, 0.2)


def test_binomial_refuses_a_fractional_error_count():
    with pytest.raises(InputError, match=r"^accepted loss sum 2\.5 is not a whole count"):
        p_value("binomial", 2.5, 10, 0.1)


def test_loss_sum_outside_the_unit_interval_is_refused():
    with pytest.raises(InputError, match=r"^accepted loss sum 11\.0 over 10 samples"):
        p_value("hoeffding", 11.0, 10, 0.1)
    with pytest.raises(InputError, match="over 10 samples"):
        p_value("hoeffding-bentkus", -0.5, 10, 0.1)
    with pytest.raises(InputError, match=r"^11 errors among 10 accepted samples"):
        p_binomial(11, 10, 0.1)


def test_check_losses_names_the_first_offending_sample():
    check_losses(np.array([0.0, 0.25, 1.0]), "hoeffding")
    check_losses(np.array([0.0, 1.0, 1.0]), "binomial")
    with pytest.raises(InputError) as err:
        check_losses(np.array([0.0, 1.5, -1.0]), "hoeffding")
    assert str(err.value) == "loss 1.5 at sample 1 is outside [0, 1], which risk control needs"
    with pytest.raises(InputError, match=r"^loss nan at sample 0 is outside"):
        check_losses(np.array([np.nan]), "hoeffding-bentkus")
    with pytest.raises(InputError) as err:
        check_losses(np.array([1.0, 0.0, 0.5]), "binomial")
    assert str(err.value) == "loss 0.5 at sample 2 is not 0 or 1, which the binomial bound needs"


def test_levels_and_bound_names_are_usage_errors():
    for bad in (0.0, 1.0, -0.1, 2.0, True):
        with pytest.raises(UsageError) as err:
            check_level("alpha", bad)
        assert str(err.value) == f"--alpha {bad!r} is outside (0, 1)"
    with pytest.raises(UsageError, match=r"^--alpha"):
        p_value("hoeffding", 0.0, 5, 1.0)
    with pytest.raises(UsageError) as err:
        p_value("bentkus", 0.0, 5, 0.1)
    assert str(err.value) == (
        "unknown bound 'bentkus'; expected one of binomial, hoeffding, hoeffding-bentkus"
    )
