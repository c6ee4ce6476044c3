"""The portable calibration query (ECE, NLL, Brier of `prob`; docs/metrics.md) equals the macro
prob_calibration in DuckDB bit for bit (no Spark needed): `evaluate --engine spark` renders it
for the `inputs[].calibration` of a file Spark reads (tests/portable/test_spark_calibrated.py)."""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rendered_once
from riskcov.resources import resource_dir

# bin edges, the clip bounds and values floor(p * 10) puts one bin off (0.3 * 10 < 3 in doubles)
EDGES = [0.0, 1.0, 0.3, 0.7, 0.1, 1e-7, 1 - 1e-7, 0.5, 0.30000000000000004, 0.29999999999999993]


def _both(rows: list[tuple[int, float, int]], n_bins: int) -> tuple[list[tuple], list[tuple]]:
    con = duckdb.connect()
    con.execute("SET threads = 1")
    con.execute((resource_dir("sql") / "prob_calibration.sql").read_text())
    con.execute("CREATE TABLE probabilities (series INTEGER, prob DOUBLE, correct INTEGER)")
    con.executemany("INSERT INTO probabilities VALUES (?, ?, ?)", rows)
    con.execute(f"CREATE TABLE bins AS SELECT {n_bins} AS n_bins")
    order = " ORDER BY series"
    want = con.execute(f"FROM prob_calibration('probabilities', {n_bins})" + order).fetchall()
    query = rendered_once.render("prob_calibration", "duckdb")
    got = con.execute(f"SELECT * FROM ({query})" + order).fetchall()
    return want, got


def test_portable_prob_calibration_equals_the_macro_and_a_hand_count() -> None:
    rows = [(0, p, i % 2) for i, p in enumerate(EDGES)] + [(1, 0.9, 1), (1, 0.9, 0), (1, 0.2, 0)]
    want, got = _both(rows, 10)
    assert got == want and [r[0] for r in want] == [0, 1]
    # series 1 by hand: bins 9 (two at 0.9, one right) and 2 (0.2, wrong)
    ece = (2 * abs(0.5 - 0.9) + 1 * abs(0.0 - 0.2)) / 3
    nll = -(math.log(0.9) + math.log(0.1) + math.log(0.8)) / 3
    brier = (0.1**2 + 0.9**2 + 0.2**2) / 3
    assert want[1] == (1, 3, pytest.approx(ece), pytest.approx(nll), pytest.approx(brier), 10)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 2), st.one_of(st.sampled_from(EDGES), st.floats(0, 1)), st.integers(0, 1)),
        min_size=1,
        max_size=60,
    ),
    st.sampled_from([1, 3, 10, 15]),
)
def test_portable_prob_calibration_equals_the_macro_bit_for_bit(rows: list, n_bins: int) -> None:
    want, got = _both(rows, n_bins)
    assert got == want
    assert all(np.isfinite(v) for r in want for v in r[2:5])
