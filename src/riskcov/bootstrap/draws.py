"""Participant-cluster bootstrap draws (docs/metrics.md): resamples as sample weights."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

IntArray = np.ndarray[Any, np.dtype[np.int64]]


def sample_chunks(
    participants: list[int],
    n_resamples: int,
    seed: int,
    chunk: int | Sequence[int],
) -> Iterator[tuple[IntArray, IntArray, IntArray]]:
    """(replicate, participant_id, multiplicity) rows, `chunk` replicates at a time (or the
    sizes of the chunks in order, engine.chunk_sizes).

    Replicate b takes row b of RandomState(seed).randint(0, P, size=(B, P)); drawing the rows
    chunk by chunk from one RandomState gives the same numbers in a fraction of the memory.
    Replicate 0 (the point estimate, every participant once) leads the first chunk.

    >>> [r.tolist() for r in next(sample_chunks([7, 9], 0, 0, 2))]
    [[0, 0], [7, 9], [1, 1]]
    """
    ids = np.asarray(participants, dtype=np.int64)
    p = len(ids)
    point = (np.zeros(p, dtype=np.int64), ids, np.ones(p, dtype=np.int64))
    if n_resamples <= 0 or p == 0:
        yield point
        return
    if isinstance(chunk, (int, np.integer)):
        sizes = [int(chunk)] * -(-n_resamples // int(chunk))
    else:
        sizes = [int(size) for size in chunk]
    if min(sizes) < 1 or sum(sizes) < n_resamples:  # before drawing anything
        raise ValueError(f"chunk sizes {sizes} do not cover {n_resamples} replicates")
    rng = np.random.RandomState(seed)
    start = 0
    for size in sizes:
        rows = min(size, n_resamples - start)
        if rows <= 0:
            break
        draws = rng.randint(0, p, size=(rows, p))
        flat = draws + (np.arange(rows, dtype=np.int64) * p)[:, None]
        counts = np.bincount(flat.ravel(), minlength=rows * p)
        hit = np.flatnonzero(counts)
        rep, pid, mult = (hit // p + start + 1).astype(np.int64), ids[hit % p], counts[hit]
        if start == 0:
            rep, pid, mult = (
                np.concatenate([point[0], rep]),
                np.concatenate([point[1], pid]),
                np.concatenate([point[2], mult]),
            )
        yield rep, pid, mult.astype(np.int64)
        start += rows
