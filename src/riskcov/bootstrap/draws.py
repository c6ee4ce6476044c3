"""Participant-cluster bootstrap draws (docs/metrics.md): resamples as sample weights."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

IntArray = np.ndarray[Any, np.dtype[np.int64]]


@dataclass
class Draws:
    """One chunk of replicates as multiplicity vectors: counts[i, j] is how many times replicate
    first + i draws participants[j] (the draw order)."""

    participants: IntArray
    first: int
    counts: IntArray  # (replicates, participants)

    def rows(self) -> tuple[IntArray, IntArray, IntArray]:
        """The chunk as (replicate, participant_id, multiplicity) rows, one per participant a
        replicate draws, in (replicate, draw order) order."""
        flat = self.counts.ravel()
        hit = np.flatnonzero(flat)
        rep, column = np.divmod(hit, len(self.participants))
        rep += self.first
        multiplicity = flat[hit].astype(np.int64, copy=False)
        return rep.astype(np.int64, copy=False), self.participants[column], multiplicity


def draw_chunks(
    participants: list[int],
    n_resamples: int,
    seed: int,
    chunk: int | Sequence[int],
) -> Iterator[Draws]:
    """The replicates `chunk` at a time (or the sizes of the chunks in order,
    chunk_plan.chunk_sizes), as multiplicity vectors.

    Replicate b takes row b of RandomState(seed).randint(0, P, size=(B, P)); drawing the rows
    chunk by chunk from one RandomState gives the same numbers in a fraction of the memory.
    Replicate 0 (the point estimate, every participant once) leads the first chunk.

    >>> d = next(draw_chunks([7, 9], 2, 0, 2))
    >>> d.first, d.counts.tolist()
    (0, [[1, 1], [1, 1], [1, 1]])
    """
    ids = np.asarray(participants, dtype=np.int64)
    p = len(ids)
    point = np.ones((1, p), dtype=np.int64)
    if n_resamples <= 0 or p == 0:
        yield Draws(ids, 0, point)
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
        counts = np.bincount(flat.ravel(), minlength=rows * p).reshape(rows, p)
        if start == 0:
            yield Draws(ids, 0, np.concatenate([point, counts]))
        else:
            yield Draws(ids, start + 1, counts)
        start += rows


def sample_chunks(
    participants: list[int],
    n_resamples: int,
    seed: int,
    chunk: int | Sequence[int],
) -> Iterator[tuple[IntArray, IntArray, IntArray]]:
    """draw_chunks' chunks as (replicate, participant_id, multiplicity) rows (Draws.rows).

    >>> [r.tolist() for r in next(sample_chunks([7, 9], 0, 0, 2))]
    [[0, 0], [7, 9], [1, 1]]
    """
    for draws in draw_chunks(participants, n_resamples, seed, chunk):
        yield draws.rows()
