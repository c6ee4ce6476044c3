"""metrics.hull.lower_hull (numpy, all blocks at once) against Andrew's monotone chain in exact
arithmetic: fd-shifts' dominant points (integer counts, from the origin) and the hull of the
working points (coverage, selective risk) as doubles, near-collinear points included."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from riskcov.metrics.hull import lower_hull
from riskcov.metrics.interpolated import _hull_of_blocks


def _chain(points: list[tuple[float, float]], origin: bool = True) -> list[int]:
    """Indices (into `points`) of the lower hull of the points (after (0, 0) when `origin`, which
    is itself left out), collinear dropped: the textbook monotone chain in exact rationals."""
    xy = [(Fraction(0), Fraction(0))] * origin + [(Fraction(x), Fraction(y)) for x, y in points]
    hull: list[int] = []
    for j in range(len(xy)):
        while len(hull) >= 2:
            (ox, oy), (ax, ay), (bx, by) = xy[hull[-2]], xy[hull[-1]], xy[j]
            if (ax - ox) * (by - oy) - (ay - oy) * (bx - ox) <= 0:
                hull.pop()
            else:
                break
        hull.append(j)
    return [j - origin for j in hull if j >= origin]


def _stacked(blocks, dtype):
    """(block, x, y) arrays of several blocks' points, in (block, x) order."""
    block = np.concatenate([np.full(len(b), i) for i, b in enumerate(blocks)] or [[]]).astype(np.int64)
    x = np.array([p[0] for b in blocks for p in b], dtype=dtype)
    return block, x, np.array([p[1] for b in blocks for p in b], dtype=dtype)


def _expected(blocks, origin):
    """The hull mask of every block by the monotone chain, concatenated."""
    out = []
    for b in blocks:
        kept = set(_chain(b, origin))
        out += [j in kept for j in range(len(b))]
    return out


def dominant(block, a, errors):
    return lower_hull(block, a, errors, from_origin=True)


def _block() -> st.SearchStrategy[list[tuple[int, int]]]:
    """Working points of one block: a strictly increasing, losses a non-decreasing count <= a."""
    step = st.tuples(st.integers(1, 4), st.integers(0, 4))
    return st.lists(step, min_size=1, max_size=25).map(
        lambda steps: [
            (sum(k for k, _ in steps[: i + 1]), sum(min(k, e) for k, e in steps[: i + 1]))
            for i in range(len(steps))
        ]
    )


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(_block(), min_size=1, max_size=6))
def test_dominant_points_are_the_monotone_chain_hull(blocks):
    got = lower_hull(*_stacked(blocks, np.int64), from_origin=True)
    assert got.tolist() == _expected(blocks, origin=True)
    ends = np.cumsum([len(b) for b in blocks]) - 1
    assert got[ends].all()  # the highest-coverage point is always kept


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(_block(), min_size=1, max_size=6))
def test_integer_hull_without_origin_is_the_monotone_chain_hull(blocks):
    got = lower_hull(*_stacked(blocks, np.int64), from_origin=False)
    assert got.tolist() == _expected(blocks, origin=False)


@settings(max_examples=examples(10), deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.05, 0.3, 0.7]))
def test_long_zero_one_paths_give_the_monotone_chain_hull(seed, error_rate):
    # bootstrap-like paths: each point adds 1-4 items, all correct or all wrong (0/1 losses,
    # one item per plateau drawn several times), so long runs are collinear and corners rare
    rng = np.random.default_rng(seed)
    blocks = []
    for _ in range(3):
        k = rng.integers(1, 5, size=int(rng.integers(1, 3000)))
        wrong = rng.random(len(k)) < error_rate
        blocks.append(list(zip(np.cumsum(k).tolist(), np.cumsum(k * wrong).tolist(), strict=True)))
    for origin in (True, False):
        got = lower_hull(*_stacked(blocks, np.int64), from_origin=origin)
        assert got.tolist() == _expected(blocks, origin=origin)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(_block(), min_size=0, max_size=6), st.integers(1, 40))
def test_the_hull_taken_a_slice_of_whole_blocks_at_a_time_is_the_monotone_chain_hull(blocks, rows):
    # metrics.interpolated takes the hull of a chunk a slice of about `rows` rows at a time
    got = _hull_of_blocks(*_stacked(blocks, np.int64), rows=rows)
    assert got.tolist() == _expected(blocks, origin=True)


def test_collinear_points_are_dropped_and_an_empty_input_is_fine():
    # (1,0), (2,1), (3,2), (4,3): (2,1) and (3,2) lie on the chord from (1,0) to (4,3)
    assert dominant(np.zeros(4, dtype=np.int64), np.array([1, 2, 3, 4]), np.array([0, 1, 2, 3])).tolist() == [
        True,
        False,
        False,
        True,
    ]
    # all errors: every point lies on the line from the origin, only the last one stays
    assert dominant(np.zeros(3, dtype=np.int64), np.array([1, 2, 3]), np.array([1, 2, 3])).tolist() == [
        False,
        False,
        True,
    ]
    empty = np.array([], dtype=np.int64)
    assert dominant(empty, empty, empty).tolist() == []


@st.composite
def _curve(draw) -> list[tuple[float, float]]:
    """Working points (coverage k/n, selective risk L/k as doubles) of one series: on a coarse
    grid many triples are collinear in exact arithmetic and off by an ulp in doubles."""
    n = draw(st.integers(1, 40))
    ks = sorted(set(draw(st.lists(st.integers(1, n), min_size=1, max_size=n))))
    risks = draw(
        st.lists(
            st.sampled_from([0.0, 0.1, 0.2, 0.3, 1 / 3, 0.5, 2 / 3, 1.0]), min_size=len(ks), max_size=len(ks)
        )
    )
    return [(k / n, r) for k, r in zip(ks, risks, strict=True)]


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(_curve(), min_size=1, max_size=5))
def test_working_point_hull_is_the_exact_monotone_chain(curves):
    got = lower_hull(*_stacked(curves, np.float64), from_origin=False)
    assert got.tolist() == _expected(curves, origin=False)


def test_float_collinearity_is_decided_exactly():
    block = np.zeros(3, np.int64)
    # y = x: exactly collinear, whatever the doubles 0.1, 0.2, 0.3 are: the middle one is dropped
    x = np.array([0.1, 0.2, 0.3])
    assert lower_hull(block, x, x.copy(), from_origin=False).tolist() == [True, False, True]
    # one double lower: strictly below the chord (by 5.6e-18 in the cross product), a vertex
    low = np.array([0.1, np.nextafter(0.2, 0), 0.3])
    assert lower_hull(block, x, low, from_origin=False).tolist() == [True, True, True]
    # 1e-12 below the chord: a vertex (a 1e-10 tolerance on the cross product dropped it)
    y = np.array([1.0, 0.5 - 1e-12, 0.0])
    assert lower_hull(block, np.array([0.0, 0.5, 1.0]), y, from_origin=False).tolist() == [True, True, True]
