"""stream_plan._draw_positions: each stored row's participant found in the draw order, the
same positions whether the ids are consecutive, sorted or neither (an oracle: list.index)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from riskcov.metrics.stream_plan import _draw_positions


@given(
    st.lists(st.integers(-50, 50), min_size=1, max_size=30, unique=True),
    st.sampled_from(["consecutive", "sorted", "shuffled"]),
    st.lists(st.integers(0, 10**6), max_size=40),
)
def test_positions_are_the_index_in_the_draw_order(raw, shape, picks):
    if shape == "consecutive":
        raw = list(range(raw[0], raw[0] + len(raw)))
    elif shape == "sorted":
        raw = sorted(raw)
    ids = np.array(raw, dtype=np.int64)
    pid = np.array([raw[p % len(raw)] for p in picks], dtype=np.int64)
    got = _draw_positions(ids, np.argsort(ids, kind="stable"), pid)
    assert got.tolist() == [raw.index(int(p)) for p in pid]
    assert got.dtype == np.int64
