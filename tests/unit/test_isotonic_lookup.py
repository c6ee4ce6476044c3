"""Isotonic calibrators applied by binary search (issue 24, item 12): the same bits as the CASE
chain they replace, for any knots, in time that does not grow with the knot count beyond reading
them once; more knots than MAX_KNOTS are refused with the limit named."""

from __future__ import annotations

import itertools
import json
import math
import time

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riskcov.errors import InputError
from riskcov.scoring.calibration.artifact import MAX_KNOTS, Calibrator, Isotonic, load
from riskcov.scoring.calibration.to_sql import d, value_sql


def case_chain(xs: list[float], ys: list[float], x: str) -> str:
    """The former SQL (one WHEN per knot), the oracle for the values."""
    whens = [f"WHEN ({x}) < {d(xs[0])} THEN {d(ys[0])}"]
    for (x0, y0), (x1, y1) in itertools.pairwise(zip(xs, ys, strict=True)):
        slope = (y1 - y0) / (x1 - x0)
        if math.isfinite(slope):
            value = f"{d(slope)} * (({x}) - {d(x0)}) + {d(y0)}"
        else:
            value = f"{d(y0)} + ((({x}) - {d(x0)}) / {d(x1 - x0)}) * {d(y1 - y0)}"
        whens.append(f"WHEN ({x}) < {d(x1)} THEN {value}")
    inner = f"CASE {' '.join(whens)} ELSE {d(ys[-1])} END"
    return f"CASE WHEN ({x}) IS NULL THEN NULL ELSE least(greatest({inner}, {d(0.0)}), {d(1.0)}) END"


def _both(xs: list[float], ys: list[float], values: list[float | None]) -> tuple[list, list]:
    cal = Calibrator("isotonic", ("token_msp",), "correctness", Isotonic(tuple(xs), tuple(ys)))
    con = duckdb.connect()
    con.execute("CREATE TABLE v (rid INTEGER, x DOUBLE)")
    con.executemany("INSERT INTO v VALUES (?, ?)", list(enumerate(values)))
    new = con.execute(f"SELECT {value_sql(cal, 'x')} FROM v ORDER BY rid").fetchall()
    old = con.execute(f"SELECT {case_chain(xs, ys, 'x')} FROM v ORDER BY rid").fetchall()
    return new, old


def _bits(rows: list) -> list:
    return [None if r[0] is None else np.float64(r[0]).tobytes() for r in rows]


knots = st.lists(
    st.tuples(st.floats(-1e6, 1e6, allow_nan=False), st.floats(-0.5, 1.5, allow_nan=False)),
    min_size=1,
    max_size=40,
    unique_by=lambda t: t[0],
).map(sorted)


@settings(max_examples=30, deadline=None)
@given(knots, st.lists(st.one_of(st.none(), st.floats(-2e6, 2e6, allow_nan=False)), max_size=30))
def test_the_lookup_gives_the_chains_bits(pairs, values):
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    values = [*values, *xs, float("inf"), float("-inf"), float("nan")]  # knots and edges too
    new, old = _both(xs, ys, values)
    assert _bits(new) == _bits(old)


def test_knots_a_subnormal_apart_take_the_fraction_form():
    xs, ys = [0.0, 5e-324, 1.0], [0.0, 1.0, 1.0]  # slope 1 / 5e-324 overflows
    new, old = _both(xs, ys, [0.0, 5e-324, 2.5e-324, 0.5])
    assert _bits(new) == _bits(old)


def test_many_knots_apply_in_about_the_time_of_few(tmp_path):
    con = duckdb.connect()
    con.execute("CREATE TABLE v AS SELECT (range % 997) / 997.0 AS x FROM range(20000)")
    times = {}
    for k in (10, 50_000):
        xs = [i / k for i in range(k)]
        ys = [min(1.0, (i / k) ** 2) for i in range(k)]
        cal = Calibrator("isotonic", ("token_msp",), "correctness", Isotonic(tuple(xs), tuple(ys)))
        start = time.process_time()
        con.execute(f"SELECT sum({value_sql(cal, 'x')}) FROM v").fetchall()
        times[k] = time.process_time() - start
    # 5,000 times the knots: reading them once plus log2 more steps, not 5,000 times the work
    # (the CASE chain took minutes for 20,000 knots); the floor leaves room for a busy machine,
    # whose CPU seconds run long
    assert times[50_000] < 30 * max(times[10], 0.2), times


def test_more_knots_than_the_cap_are_refused(tmp_path):
    n = MAX_KNOTS + 1
    path = tmp_path / "cal.json"
    model = {"x_thresholds": list(range(n)), "y_thresholds": [0.5] * n}
    path.write_text(
        json.dumps({"method": "isotonic", "features": ["token_msp"], "target": "correctness", "model": model})
    )
    with pytest.raises(InputError) as err:
        load(path)
    assert str(err.value) == f"{path}: model.x_thresholds has 100,001 knots; riskcov reads at most 100,000"


def test_a_negative_zero_knot_gives_the_chains_positive_zero():
    new, old = _both([0.0, 1.0], [-0.0, -0.5], [0.0, 1.0])  # found by the property test above
    assert _bits(new) == _bits(old) == [np.float64(0.0).tobytes()] * 2
