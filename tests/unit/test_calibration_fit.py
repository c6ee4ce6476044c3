"""Fitting calibrators (docs/calibration.md): each fit against an oracle written here."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from riskcov.errors import InputError, UsageError
from riskcov.scoring.calibration.artifact import Isotonic, Linear, Temperature
from riskcov.scoring.calibration.fit import (
    default_value,
    fit,
    fit_isotonic,
    fit_logistic,
    fit_ridge,
    fit_scaler,
    fit_temperature,
    target_values,
)

# ---- oracles ----------------------------------------------------------------------------------


def nll(p: np.ndarray, y: np.ndarray, t: float | np.ndarray) -> np.ndarray:
    """Mean binary NLL of sigmoid(logit(clip(p)) / t), each term as log(1 + exp(±z)); one value
    per temperature when t is a vector."""
    c = np.clip(p, 1e-6, 1 - 1e-6)
    z = np.log(c / (1 - c)) / np.asarray(t, dtype=float)[..., None]
    out: np.ndarray = np.mean(np.logaddexp(0.0, np.where(y == 1, -z, z)), axis=-1)
    return out


def grid_temperature(p: np.ndarray, y: np.ndarray) -> float:
    """The reference's search: T = 1, then 3 log grids of 200 points, narrowing by 1.5 each way
    (a grid point replaces the best only when strictly better; the first minimum wins)."""
    low, high, best_t = 0.05, 10.0, 1.0
    best = float(nll(p, y, best_t))
    for _ in range(3):
        grid = np.exp(np.linspace(np.log(low), np.log(high), 200))
        values = nll(p, y, grid)
        i = int(np.argmin(values))  # the first minimum, as numpy.argmin
        if values[i] < best:
            best, best_t = float(values[i]), float(grid[i])
        low, high = max(0.05, best_t / 1.5), min(10.0, best_t * 1.5)
    return best_t


def standardise(x: np.ndarray) -> np.ndarray:
    std = np.array([math.sqrt(sum((v - col.mean()) ** 2 for v in col) / len(col)) for col in x.T])
    out: np.ndarray = (x - x.mean(axis=0)) / np.where(std == 0, 1.0, std)
    return out


def isotonic_oracle(x: list[float], y: list[Fraction]) -> dict[float, Fraction]:
    """Brute force: equal x pooled to their mean (weighted by count), then the min-max formula
    f_i = max_{j<=i} min_{k>=i} (weighted mean of points j..k)."""
    xs = sorted(set(x))
    sums = [sum((yy for xx, yy in zip(x, y, strict=True) if xx == u), Fraction(0)) for u in xs]
    counts = [sum(1 for xx in x if xx == u) for u in xs]

    def mean(j: int, k: int) -> Fraction:
        return sum(sums[j : k + 1], Fraction(0)) / sum(counts[j : k + 1])

    n = len(xs)
    return {xs[i]: max(min(mean(j, k) for k in range(i, n)) for j in range(i + 1)) for i in range(n)}


# ---- imputation and targets -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("retrieval_similarity_mean", 0.0),
        ("retrieval_similarity_max", 0.0),
        ("verbalized_confidence", 3.0),
        ("consistency_modal_confidence", 3.0),
        ("confidence_similarity", 0.0),  # "similarity" is checked first
        ("llm_evidence_count", 0.0),
        ("token_msp", 0.0),
    ],
)
def test_default_value(name: str, value: float) -> None:
    assert default_value(name) == value


def test_targets() -> None:
    pred, gt = [0, 1, 3, 3], [0, 2, 1, 0]  # abs errors 0, 1, 2, 3
    assert target_values(pred, gt, "correctness").tolist() == [1.0, 0.0, 0.0, 0.0]
    assert target_values(pred, gt, "near_correct").tolist() == [1.0, 1.0, 0.0, 0.0]
    assert target_values(pred, gt, "loss").tolist() == pytest.approx([1.0, 2 / 3, 1 / 3, 0.0])


# ---- temperature ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "y", "t"),
    [
        # sigmoid(ln 9 / T) = 3/4 = sigmoid(ln 3)  ->  T = 2
        ([0.9] * 4, [1, 1, 1, 0], 2.0),
        # sigmoid(ln 3 / T) = 9/10 = sigmoid(ln 9)  ->  T = 1/2
        ([0.75] * 10, [1] * 9 + [0], 0.5),
        # symmetric data: p and 1 - p each right 3 times in 4  ->  T = ln 9 / ln 3 = 2 again
        ([0.9] * 4 + [0.1] * 4, [1, 1, 1, 0, 0, 0, 0, 1], 2.0),
        ([0.75] * 3, [1, 1, 1], 0.05),  # always right: as sharp as allowed
        ([0.75, 0.75], [1, 0], 10.0),  # a coin: as flat as allowed
        ([0.5, 0.5, 0.5], [1, 0, 0], 1.0),  # the NLL does not depend on T
    ],
)
def test_temperature_exact(p: list[float], y: list[int], t: float) -> None:
    assert fit_temperature(np.array(p), np.array(y)) == pytest.approx(t, rel=1e-12)


probs = st.one_of(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), st.floats(0.0, 1.0, allow_nan=False))


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(probs, st.integers(0, 1)), min_size=1, max_size=40))
def test_temperature_beats_the_reference_grid(rows: list[tuple[float, int]]) -> None:
    p = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])
    t = fit_temperature(p, y)
    assert 0.05 <= t <= 10.0
    assert float(nll(p, y, t)) <= float(nll(p, y, grid_temperature(p, y))) + 1e-12
    c = np.clip(p, 1e-6, 1 - 1e-6)
    z = np.log(c / (1 - c))
    slope = float(np.sum(z * (1 / (1 + np.exp(-z / t)) - y)))  # dNLL/d(1/T)
    if 0.05 < t < 10.0:  # an interior optimum is a stationary point
        assert abs(slope) <= 1e-9 * max(1.0, float(np.sum(np.abs(z))))


@pytest.mark.parametrize(
    ("p", "y", "message"),
    [
        ([0.5, 1.5], [1, 0], "temperature scaling needs probability-like values in [0, 1], got 1.5"),
        ([0.5, 0.5], [1, 2], "temperature scaling: the target must be 0 or 1, got 2.0"),
        ([], [], "temperature scaling: no items to fit on"),
    ],
)
def test_temperature_refuses(p: list[float], y: list[int], message: str) -> None:
    with pytest.raises(InputError) as exc:
        fit_temperature(np.array(p, dtype=float), np.array(y, dtype=float))
    assert str(exc.value) == message


# ---- logistic and ridge -----------------------------------------------------------------------

cells = st.one_of(st.integers(0, 5).map(float), st.floats(-3, 3, allow_nan=False))


def matrices(min_rows: int) -> st.SearchStrategy[np.ndarray]:
    return (
        st.integers(1, 3)
        .flatmap(lambda k: st.lists(st.lists(cells, min_size=k, max_size=k), min_size=min_rows, max_size=30))
        .map(lambda rows: np.array(rows, dtype=float))
    )


@settings(max_examples=examples(100), deadline=None)
@given(matrices(2), st.data())
def test_logistic_gradient_is_zero(x: np.ndarray, data: st.DataObject) -> None:
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=len(x), max_size=len(x))), float)
    assume(0 < y.sum() < len(y))
    m = fit_logistic(x, y)
    assert m.link == "sigmoid"
    assert m.mean == pytest.approx(x.mean(axis=0).tolist(), rel=1e-12, abs=1e-12)
    z = standardise(x)
    w = np.array(m.coefficients)
    s = 1 / (1 + np.exp(-(m.intercept + z @ w)))
    # d/d(b, w) of Σ [log(1 + e^η) - y·η] + ½‖w‖²
    grad = np.concatenate([[np.sum(s - y)], z.T @ (s - y) + w])
    assert np.max(np.abs(grad)) <= 1e-9


@settings(max_examples=examples(100), deadline=None)
@given(matrices(1), st.data())
def test_ridge_gradient_is_zero(x: np.ndarray, data: st.DataObject) -> None:
    y = np.array(data.draw(st.lists(st.sampled_from([0, 1 / 3, 2 / 3, 1]), min_size=len(x), max_size=len(x))))
    m = fit_ridge(x, y)
    assert m.link == "identity"
    z = standardise(x)
    w = np.array(m.coefficients)
    r = y - m.intercept - z @ w
    # d/d(b, w) of ½‖r‖² + ½‖w‖²
    grad = np.concatenate([[-np.sum(r)], -z.T @ r + w])
    assert np.max(np.abs(grad)) <= 1e-9


def test_ridge_by_hand() -> None:
    # z = (-1, 1): b = mean y = 1/2, w = Σ z (y - 1/2) / (Σ z² + 1) = 1/3
    assert fit_ridge(np.array([[1.0], [3.0]]), np.array([0.0, 1.0])) == Linear(
        (pytest.approx(1 / 3),), pytest.approx(0.5), "identity", (2.0,), (1.0,)
    )
    # a constant feature: std 0 -> 1, no slope
    m = fit_ridge(np.array([[5.0], [5.0], [5.0]]), np.array([0.0, 0.5, 1.0]))
    assert (m.coefficients, m.intercept, m.mean, m.std) == ((0.0,), 0.5, (5.0,), (1.0,))


def test_scaler_is_population_std() -> None:
    mean, std = fit_scaler(np.array([[1.0, 4.0], [3.0, 4.0]]))
    assert mean.tolist() == [2.0, 4.0]
    assert std.tolist() == [1.0, 1.0]  # ddof 0 (not sqrt 2); the constant column gets 1


def test_logistic_needs_both_outcomes() -> None:
    with pytest.raises(InputError) as exc:
        fit_logistic(np.array([[1.0], [2.0]]), np.array([1.0, 1.0]))
    assert str(exc.value) == "logistic calibration needs both outcomes; all 2 items are 1"


# ---- isotonic ---------------------------------------------------------------------------------


def test_isotonic_by_hand() -> None:
    # equal x pooled first: x = 1 has mean 1/2, above x = 2's 0, so both pool to 1/3
    m = fit_isotonic(np.array([1.0, 1.0, 2.0]), np.array([1.0, 0.0, 0.0]))
    assert m == Isotonic((1.0, 2.0), (pytest.approx(1 / 3), pytest.approx(1 / 3)))
    # the interior knots of a flat run are dropped, its ends kept
    m = fit_isotonic(np.array([0.0, 1.0, 2.0, 3.0, 4.0]), np.array([0.0, 1.0, 1.0, 1.0, 1.0]))
    assert m == Isotonic((0.0, 1.0, 4.0), (0.0, 1.0, 1.0))
    assert fit_isotonic(np.array([2.0, 2.0]), np.array([0.0, 1.0])) == Isotonic((2.0,), (0.5,))


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3)), min_size=1, max_size=25))
def test_isotonic_matches_brute_force(rows: list[tuple[int, int]]) -> None:
    x = [r[0] / 2 for r in rows]
    y = [Fraction(r[1], 3) for r in rows]
    m = fit_isotonic(np.array(x), np.array([float(v) for v in y]))
    expected = isotonic_oracle(x, y)
    ux = sorted(expected)
    kx = list(m.x_thresholds)
    assert kx[0] == ux[0] and kx[-1] == ux[-1] and set(kx) <= set(ux)
    assert all(a < b for a, b in itertools.pairwise(kx))
    # interpolating the knots gives the least-squares fit at every distinct x
    got = np.interp(ux, kx, m.y_thresholds)
    assert got.tolist() == pytest.approx([float(expected[u]) for u in ux], abs=1e-12)
    # no knot is redundant: none equals both of its neighbours
    ky = m.y_thresholds
    assert not any(ky[i - 1] == ky[i] == ky[i + 1] for i in range(1, len(ky) - 1))


# ---- dispatch ---------------------------------------------------------------------------------


def test_fit_dispatch() -> None:
    x = np.array([[0.25], [0.75], [0.75], [0.25]])
    y = np.array([0.0, 1.0, 1.0, 1.0])
    cal = fit("temperature_scaling", ["token_msp"], "correctness", x, y)
    assert (cal.method, cal.features, cal.target) == ("temperature_scaling", ("token_msp",), "correctness")
    assert isinstance(cal.model, Temperature)
    assert cal.model.temperature == fit_temperature(x[:, 0], y)
    assert fit("platt", ["a"], "correctness", x, y).model == fit_logistic(x, y)
    assert fit("platt", ["a"], "loss", x, y).model == fit_ridge(x, y)
    assert fit("logistic", ["a"], "near_correct", x, y).model == fit_logistic(x, y)
    assert fit("isotonic", ["a"], "loss", x, y).model == fit_isotonic(x[:, 0], y)


@pytest.mark.parametrize(
    ("method", "features", "target", "message"),
    [
        ("isotonic", ["a", "b"], "correctness", "--method isotonic takes exactly one feature, got 2"),
        ("platt", [], "correctness", "--method platt takes exactly one feature, got 0"),
        ("logistic", [], "correctness", "--method logistic needs at least one feature"),
        (
            "temperature_scaling",
            ["a"],
            "loss",
            "--method temperature_scaling needs a binary target, not loss",
        ),
    ],
)
def test_fit_refuses(method: str, features: list[str], target: str, message: str) -> None:
    with pytest.raises(UsageError) as exc:
        fit(method, features, target, np.zeros((2, len(features))), np.array([0.0, 1.0]))
    assert str(exc.value) == message
