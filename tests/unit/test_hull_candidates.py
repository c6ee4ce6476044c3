"""metrics.interpolated's CANDIDATES_SQL, the points of 0/1-loss blocks fetched for the hull:
lower_hull over them alone gives the vertices lower_hull gives over every point, whatever order
the rows are scanned in, and in the stored order they are exactly the points lower_hull's first
pass keeps (its tie rule: a point on the chord is dropped)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import duckdb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from riskcov.metrics.hull import _integer_pass, lower_hull
from riskcov.metrics.interpolated import CANDIDATES_SQL, _loss_scales
from rows_at_once import insert

Point = tuple[int, int, int, int]  # (series, replicate, k_cum, count of wrong items)


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    c = duckdb.connect()
    c.execute("SET threads = 1")
    yield c
    c.close()


def _block() -> st.SearchStrategy[list[tuple[int, int]]]:
    """(k_cum, wrong) of one block: k_cum rising by 1-4, wrong by at most as much (0/1 losses);
    long straight runs (steps repeated) make collinear points common."""
    step = st.tuples(st.integers(1, 4), st.integers(0, 4), st.integers(1, 3))
    return st.lists(step, min_size=1, max_size=20).map(
        lambda steps: list(
            zip(
                np.cumsum([k for k, _, r in steps for _ in range(r)]).tolist(),
                np.cumsum([min(k, e) for k, e, r in steps for _ in range(r)]).tolist(),
                strict=True,
            )
        )
    )


def _points(blocks: list[list[tuple[int, int]]]) -> list[Point]:
    """Blocks 0, 1, ... as series b % 2, replicate b // 2, in (series, replicate, k_cum) order."""
    out = [(b % 2, b // 2, k, wrong) for b, pts in enumerate(blocks) for k, wrong in pts]
    return sorted(out)


def _hull(points: list[Point]) -> set[tuple[int, int, int]]:
    """(series, replicate, k_cum) of lower_hull's vertices (from (0, 0)) over the points."""
    pts = sorted(points)
    block = np.array([(s << 32) + r for s, r, _, _ in pts], dtype=np.int64)
    k = np.array([p[2] for p in pts], dtype=np.int64)
    wrong = np.array([p[3] for p in pts], dtype=np.int64)
    keep = lower_hull(block, k, wrong, from_origin=True)
    return {p[:3] for p, kept in zip(pts, keep.tolist(), strict=True) if kept}


def _candidates(con: duckdb.DuckDBPyConnection, rows: list[Point], scale: float, binary: str) -> list[Point]:
    """CANDIDATES_SQL over `rows` stored in the given order (raw loss sums: scale x wrong)."""
    con.execute("CREATE OR REPLACE TABLE pts (series INTEGER, replicate INTEGER, k_cum BIGINT, l_cum DOUBLE)")
    insert(con, "pts", [(s, r, k, scale * w) for s, r, k, w in rows])
    con.execute(
        "CREATE OR REPLACE TABLE eval_totals AS "
        "SELECT * FROM (VALUES (0, 0, ?), (1, 0, ?), (1, 1, ?)) AS t(series, replicate, loss_scale)",
        [scale, scale, scale],
    )
    scale_of, params = _loss_scales(con)
    query = CANDIDATES_SQL.format(source="pts", ids="0, 1", binary=binary, **scale_of)
    got = con.execute(query, params).fetchall()
    return [(int(b) >> 32, int(b) & 0xFFFFFFFF, int(k), int(loss)) for b, k, loss in got]


FIXTURE = HealthCheck.function_scoped_fixture
SCALES = st.sampled_from([1.0, 3.0, 0.25])


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[FIXTURE])
@given(st.lists(_block(), min_size=0, max_size=5), SCALES, st.integers(0, 2**32 - 1), st.booleans())
def test_the_candidates_have_the_hull_of_every_point_in_any_scan_order(con, blocks, scale, seed, shuffled):
    points = _points(blocks)
    rows = list(points)
    if shuffled:  # soundness does not rest on the scan order, only how much is dropped does
        random.Random(seed).shuffle(rows)
    got = _candidates(con, rows, scale, binary="0, 1")
    assert set(got) <= set(points)
    assert _hull(got) == _hull(points)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[FIXTURE])
@given(st.lists(_block(), min_size=1, max_size=5), SCALES)
def test_in_stored_order_the_candidates_are_what_the_first_pass_keeps(con, blocks, scale):
    points = _points(blocks)
    block = np.array([(s << 32) + r for s, r, _, _ in points], dtype=np.int64)
    k = np.array([p[2] for p in points], dtype=np.int64)
    wrong = np.array([p[3] for p in points], dtype=np.int64)
    first_pass = ~_integer_pass(block, k, wrong, from_origin=True)
    expected = [p for p, kept in zip(points, first_pass.tolist(), strict=True) if kept]
    assert _candidates(con, points, scale, binary="0, 1") == expected
    # a series not named binary keeps every point
    assert _candidates(con, points, scale, binary="1") == [p for p in points if p[0] == 0 or p in expected]


def test_points_on_a_chord_are_dropped_and_the_last_point_kept(con):
    # (1, 0) lies on the chord from (0, 0) to (2, 0) and (3, 1) on the one from (2, 0) to
    # (4, 2); (4, 2) turns up (a corner), (5, 4) is the last point
    points = [(0, 0, k, w) for k, w in [(1, 0), (2, 0), (3, 1), (4, 2), (5, 4)]]
    assert _candidates(con, points, 1.0, binary="0") == [(0, 0, 2, 0), (0, 0, 4, 2), (0, 0, 5, 4)]
