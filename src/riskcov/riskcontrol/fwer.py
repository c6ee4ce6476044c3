"""Family-wise error control for the certified threshold (docs/metrics-extended.md): which of the
candidates' "risk > alpha" nulls a procedure rejects at level delta. Candidates come in order
of rising coverage (the most conservative first); the certified threshold is the
highest-coverage rejected one.

>>> fixed_sequence([0.01, 0.02, 0.5, 0.01], 0.1), bonferroni([0.01, 0.02, 0.5, 0.01], 0.1)
([True, True, False, False], [True, True, False, True])
>>> holm([0.01, 0.03, 0.5, 0.02], 0.1)
[True, True, False, True]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

BoolArray = np.ndarray[Any, np.dtype[np.bool_]]


def fixed_sequence(p: Sequence[float], delta: float) -> list[bool]:
    """Test in order while p <= delta; everything from the first failure on is kept."""
    out, going = [], True
    for value in p:
        going = going and value <= delta
        out.append(going)
    return out


def bonferroni(p: Sequence[float], delta: float) -> list[bool]:
    """Each candidate at delta / (number of candidates)."""
    return [value <= delta / len(p) for value in p]


def holm(p: Sequence[float], delta: float) -> list[bool]:
    """Holm's step-down: in ascending order of p (ties by position) the i-th of M is tested at
    delta / (M - i + 1) until one fails."""
    m = len(p)
    out = [False] * m
    for step, i in enumerate(sorted(range(m), key=lambda j: (p[j], j))):
        if p[i] > delta / (m - step):
            break
        out[i] = True
    return out


def split_order(p_first: Sequence[float]) -> list[int]:
    """Split fixed-sequence's testing order, from the first half's p-values: ascending p, ties
    to the higher coverage (the later candidate).

    >>> split_order([0.2, 0.01, 0.01])
    [2, 1, 0]
    """
    return sorted(range(len(p_first)), key=lambda j: (p_first[j], -j))


def split_fixed_sequence(p_first: Sequence[float], p_second: Sequence[float], delta: float) -> list[bool]:
    """Fixed sequence on the second half's p-values in the order the first half's give.

    >>> split_fixed_sequence([0.3, 0.01, 0.02], [0.05, 0.2, 0.01], 0.1)
    [False, False, False]
    >>> split_fixed_sequence([0.3, 0.01, 0.02], [0.05, 0.01, 0.2], 0.1)
    [False, True, False]
    """
    out = [False] * len(p_first)
    for j in split_order(p_first):
        if p_second[j] > delta:
            break
        out[j] = True
    return out


def halves(n: int, seed: int) -> BoolArray:
    """Which of n cal samples form the first half (n // 2 of them, drawn by
    RandomState(seed).permutation); the others test.

    >>> halves(4, 0).tolist()
    [False, False, True, True]
    """
    first = np.zeros(n, dtype=bool)
    first[np.random.RandomState(seed).permutation(n)[: n // 2]] = True
    return first
