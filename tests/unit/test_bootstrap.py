"""The bootstrap protocol of SPEC §5: draws, sample tables, intervals, reproducibility."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riskcov.bootstrap import interval, sample_chunks
from riskcov.metrics.engine import chunk_sizes


def _weights(participants: list[int], b: int, seed: int, chunk: int | list[int]) -> np.ndarray:
    """Dense (B + 1) x P multiplicity matrix assembled from the chunked sample rows."""
    index = {p: i for i, p in enumerate(participants)}
    dense = np.zeros((b + 1, len(participants)), dtype=np.int64)
    for rep, pid, mult in sample_chunks(participants, b, seed, chunk):
        dense[rep, [index[p] for p in pid]] += mult
    return dense


@settings(max_examples=40, deadline=None)
@given(
    p=st.integers(1, 12),
    b=st.integers(1, 30),
    seed=st.integers(0, 2**32 - 1),
    chunk=st.integers(1, 40),
    workers=st.integers(1, 3),
)
def test_chunked_rows_equal_one_randint_matrix(p, b, seed, chunk, workers):
    participants = sorted(np.random.RandomState(p).choice(10_000, p, replace=False).tolist())
    draws = np.random.RandomState(seed).randint(0, p, size=(b, p))
    expected = np.zeros((b + 1, p), dtype=np.int64)
    expected[0] = 1
    for r in range(b):
        expected[r + 1] = np.bincount(draws[r], minlength=p)
    sizes = chunk if workers == 1 else chunk_sizes(b, chunk, workers)  # a list: the planner's chunks
    assert (_weights(participants, b, seed, sizes) == expected).all()


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


def _artifact(paired_artifact, name: str, **overrides) -> dict:
    return paired_artifact(name, participants=23, run_seed=3, bootstrap_resamples=150, seed=9, **overrides)


def test_same_seed_gives_the_same_artifact_and_records_it(paired_artifact):
    first = _artifact(paired_artifact, "a", chunk_replicates=150)
    second = _artifact(paired_artifact, "b", chunk_replicates=7)  # other chunking, same numbers
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    boot = first["confidence_variants"]["llm"]["input_0"]["bootstrap"]
    assert (boot["seed"], boot["n_resamples"]) == (9, 150)
    assert first["options"]["seed"] == 9


def _numbers(obj, path=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _numbers(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _numbers(v, (*path, i))
    elif isinstance(obj, float):
        yield path, obj


def test_one_duckdb_thread_gives_the_same_numbers(paired_artifact, monkeypatch):
    default = dict(_numbers(_artifact(paired_artifact, "many")))
    import riskcov.warehouse as wh

    real_connect = wh.connect

    def one_thread(path, *, read_only=False):
        con = real_connect(path, read_only=read_only)
        con.execute("SET threads = 1")
        return con

    monkeypatch.setattr(wh, "connect", one_thread)
    single = dict(_numbers(_artifact(paired_artifact, "one")))
    # every sum is exact or runs on one thread in point order: the same bits, not only close
    assert single == default
