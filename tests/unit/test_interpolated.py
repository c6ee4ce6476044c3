"""The dominant points of docs/metrics.md (numpy, all blocks at once) against Andrew's monotone chain."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from riskcov.metrics.interpolated import dominant


def _chain(points: list[tuple[int, int]]) -> list[int]:
    """Indices (into `points`) of the lower hull of (0, 0) + points, collinear dropped, (0, 0)
    itself left out: the textbook monotone chain over exact integers."""
    hull: list[int] = [-1]  # -1 is the origin
    xy = [(0, 0), *points]
    for j in range(len(points)):
        while len(hull) >= 2:
            (ox, oy), (ax, ay), (bx, by) = xy[hull[-2] + 1], xy[hull[-1] + 1], xy[j + 1]
            if (ax - ox) * (by - oy) - (ay - oy) * (bx - ox) <= 0:
                hull.pop()
            else:
                break
        hull.append(j)
    return hull[1:]


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
    block = np.concatenate([np.full(len(b), i) for i, b in enumerate(blocks)]).astype(np.int64)
    a = np.array([p[0] for b in blocks for p in b], dtype=np.int64)
    errors = np.array([p[1] for b in blocks for p in b], dtype=np.int64)
    got = dominant(block, a, errors)
    start = 0
    for b in blocks:
        expected = np.zeros(len(b), dtype=bool)
        expected[_chain(b)] = True
        assert got[start : start + len(b)].tolist() == expected.tolist()
        assert got[start + len(b) - 1]  # the highest-coverage point is always kept
        start += len(b)


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
