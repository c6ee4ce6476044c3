"""The bootstrap protocol of docs/metrics.md: draws, sample tables, intervals, reproducibility."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from riskcov.bootstrap import draw_chunks, interval, sample_chunks
from riskcov.metrics.chunk_plan import chunk_sizes


def _weights(participants: list[int], b: int, seed: int, chunk: int | list[int]) -> np.ndarray:
    """Dense (B + 1) x P multiplicity matrix assembled from the chunked sample rows."""
    index = {p: i for i, p in enumerate(participants)}
    dense = np.zeros((b + 1, len(participants)), dtype=np.int64)
    for rep, pid, mult in sample_chunks(participants, b, seed, chunk):
        dense[rep, [index[p] for p in pid]] += mult
    return dense


@settings(max_examples=examples(40), deadline=None)
@given(
    p=st.integers(1, 12),
    b=st.integers(1, 30),
    seed=st.integers(0, 2**32 - 1),
    chunk=st.integers(1, 40),
    workers=st.integers(1, 3),
    lead=st.integers(0, 50),
)
def test_chunked_rows_equal_one_randint_matrix(p, b, seed, chunk, workers, lead):
    participants = sorted(np.random.RandomState(p).choice(10_000, p, replace=False).tolist())
    draws = np.random.RandomState(seed).randint(0, p, size=(b, p))
    expected = np.zeros((b + 1, p), dtype=np.int64)
    expected[0] = 1
    for r in range(b):
        expected[r + 1] = np.bincount(draws[r], minlength=p)
    sizes = chunk if workers == 1 else chunk_sizes(b, chunk, workers, lead)  # a list: the planner's chunks
    assert (_weights(participants, b, seed, sizes) == expected).all()


@given(
    b=st.integers(1, 50_000),
    chunk=st.integers(1, 30_000),
    workers=st.integers(2, 4),
    lead=st.integers(0, 5_000),
)
def test_the_first_chunk_leads_by_at_most_half_in_one_round(b, chunk, workers, lead):
    """Every replicate in exactly one chunk, every chunk non-empty; with one round of chunks the
    first (replicate 0's) gives min(lead, half of it) to the others, spread evenly."""
    plain, led = chunk_sizes(b, chunk, workers), chunk_sizes(b, chunk, workers, lead)
    assert sum(led) == b and min(led) >= 1 and len(led) == len(plain)
    if chunk * workers >= b and len(plain) > 1:
        given = min(lead, plain[0] // 2)
        assert led[0] == plain[0] - given
        extra = [x - y for x, y in zip(led[1:], plain[1:], strict=True)]
        assert sum(extra) == given and max(extra) - min(extra) <= 1
    else:
        assert led == plain


@settings(max_examples=examples(30), deadline=None)
@given(p=st.integers(1, 12), b=st.integers(0, 30), seed=st.integers(0, 2**32 - 1), chunk=st.integers(1, 40))
def test_draw_chunks_are_the_randint_matrix_as_multiplicity_vectors(p, b, seed, chunk):
    participants = sorted(np.random.RandomState(p).choice(10_000, p, replace=False).tolist())
    expected = np.ones((b + 1, p), dtype=np.int64)
    for r, row in enumerate(np.random.RandomState(seed).randint(0, p, size=(b, p))):
        expected[r + 1] = np.bincount(row, minlength=p)
    got = list(draw_chunks(participants, b, seed, chunk))
    assert [d.first for d in got] == [0] + [1 + chunk * i for i in range(1, len(got))]
    assert all(d.participants.tolist() == participants for d in got)
    assert np.array_equal(np.concatenate([d.counts for d in got]), expected)


@pytest.mark.parametrize("sizes", [[3, 2], [3, 0, 3], [4, -1, 3]])
def test_chunk_sizes_that_miss_replicates_are_an_error_before_any_draw(sizes):
    with pytest.raises(ValueError, match="do not cover 6 replicates"):
        next(sample_chunks([1, 2], 6, 0, sizes))


def test_each_row_of_a_replicate_is_a_distinct_participant():
    rep, pid, mult = next(sample_chunks([3, 5, 8], 50, 7, 50))
    pairs = set(zip(rep.tolist(), pid.tolist(), strict=True))
    assert len(pairs) == len(rep)
    assert (np.bincount(rep)[1:] > 0).all()
    assert np.bincount(rep, weights=mult).tolist() == [3.0] * 51


@pytest.mark.parametrize("b", [0, -5])
def test_no_resamples_yields_only_the_point_estimate(b):
    chunks = list(sample_chunks([1, 2], b, 42, 10))
    assert len(chunks) == 1
    assert [a.tolist() for a in chunks[0]] == [[0, 0], [1, 2], [1, 1]]


def test_interval_percentiles_drop_rate_and_collapse():
    assert interval(0.3, np.array([0.1, 0.2, 0.3, 0.4])) == (
        [float(np.percentile([0.1, 0.2, 0.3, 0.4], 2.5)), float(np.percentile([0.1, 0.2, 0.3, 0.4], 97.5))],
        0.0,
    )
    assert interval(0.3, np.array([np.nan, 0.2, np.nan, np.nan])) == ([0.3, 0.3], 0.75)
    assert interval(None, np.array([0.1, 0.2])) == (None, 1.0)
    assert interval(0.5, np.array([np.nan, np.nan])) == ([0.5, 0.5], 1.0)


@settings(max_examples=examples(30), deadline=None)
@given(p=st.integers(1, 7), b=st.integers(0, 12), seed=st.integers(0, 2**31), chunk=st.integers(1, 5))
def test_a_chunks_rows_are_its_nonzero_multiplicities_in_replicate_then_draw_order(p, b, seed, chunk):
    participants = [10 * i + 3 for i in range(p)]  # ids are not positions
    for draws in draw_chunks(participants, b, seed, chunk):
        expected = [
            (draws.first + i, participants[j], int(m))
            for i, counts in enumerate(draws.counts)
            for j, m in enumerate(counts)
            if m
        ]
        rows = draws.rows()
        assert [a.dtype for a in rows] == [np.dtype(np.int64)] * 3
        assert list(zip(*(a.tolist() for a in rows), strict=True)) == expected
