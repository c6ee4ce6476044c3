"""sql/rc_curve_grid.sql: a curve read on a coverage grid as a right-continuous step, against a
pure-Python oracle."""

from __future__ import annotations

import random

import duckdb
import pytest

from riskcov.bootstrap.curve_band import coverage_grid
from riskcov.resources import resource_dir
from rows_at_once import insert


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    c = duckdb.connect()
    c.execute((resource_dir("sql") / "rc_curve_grid.sql").read_text())
    return c


def load(
    con: duckdb.DuckDBPyConnection, points: list[tuple[int, int, float, float, float]], grid: list[float]
):
    con.execute(
        "CREATE OR REPLACE TABLE pts (series INTEGER, replicate INTEGER, coverage DOUBLE, "
        "selective_risk DOUBLE, generalized_risk DOUBLE)"
    )
    insert(con, "pts", points)
    con.execute("CREATE OR REPLACE TABLE g (coverage DOUBLE)")
    insert(con, "g", [[c] for c in grid])
    return con.execute(
        "SELECT series, replicate, coverage, achieved, selective_risk, generalized_risk "
        "FROM rc_curve_grid('pts', 'g') ORDER BY series, replicate, coverage"
    ).fetchall()


def oracle(points, grid):
    """The first point (in coverage order) with coverage >= c, else NULLs."""
    out = []
    for s, r in sorted({(p[0], p[1]) for p in points}):
        curve = sorted((p for p in points if (p[0], p[1]) == (s, r)), key=lambda p: p[2])
        for c in sorted(grid):
            hit = next((p for p in curve if p[2] >= c), None)
            out.append((s, r, c, *(hit[2:] if hit else (None, None, None))))
    return out


def test_hand_computed_steps(con):
    points = [(1, 0, 0.25, 0.1, 0.025), (1, 0, 0.5, 0.2, 0.1), (1, 3, 0.5, 0.3, 0.15), (2, 0, 1.0, 0.4, 0.4)]
    rows = load(con, points, [0.0, 0.25, 0.3, 0.75])
    assert rows == [
        (1, 0, 0.0, 0.25, 0.1, 0.025),  # below the first point: the first point
        (1, 0, 0.25, 0.25, 0.1, 0.025),  # exactly on a point: that point (>=)
        (1, 0, 0.3, 0.5, 0.2, 0.1),  # between points: the next one (right-continuous step)
        (1, 0, 0.75, None, None, None),  # above Cmax = 0.5: undefined
        (1, 3, 0.0, 0.5, 0.3, 0.15),
        (1, 3, 0.25, 0.5, 0.3, 0.15),
        (1, 3, 0.3, 0.5, 0.3, 0.15),
        (1, 3, 0.75, None, None, None),
        (2, 0, 0.0, 1.0, 0.4, 0.4),
        (2, 0, 0.25, 1.0, 0.4, 0.4),
        (2, 0, 0.3, 1.0, 0.4, 0.4),
        (2, 0, 0.75, 1.0, 0.4, 0.4),
    ]


def test_random_curves_match_the_oracle(con):
    rng = random.Random(7)
    points = []
    for series in range(3):
        for replicate in range(4):
            n = rng.randint(5, 40)
            ks = sorted(rng.sample(range(1, n + 1), rng.randint(1, n)))
            for k in ks:
                sr = rng.random()
                points.append((series, replicate, k / n, sr, sr * k / n))
    grid = coverage_grid(20)
    rows = load(con, points, grid)
    assert rows == oracle(points, grid)
    assert len(rows) == 3 * 4 * 20


def test_a_single_curve_passes_replicate_zero(con):
    con.execute(
        "CREATE TABLE curve AS SELECT * FROM (VALUES (5, 0.4, 0.2, 0.08), (5, 0.8, 0.25, 0.2)) "
        "t(series, coverage, selective_risk, generalized_risk)"
    )
    con.execute("CREATE VIEW pts0 AS SELECT series, 0 AS replicate, * EXCLUDE (series) FROM curve")
    con.execute("CREATE TABLE g AS SELECT unnest([0.5, 0.9]) AS coverage")
    assert con.execute(
        "SELECT coverage, selective_risk FROM rc_curve_grid('pts0', 'g') ORDER BY coverage"
    ).fetchall() == [(0.5, 0.25), (0.9, None)]
