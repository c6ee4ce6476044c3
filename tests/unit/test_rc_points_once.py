"""rc_points_once (the warehouse's point estimate, each series sorted once) against a plain-Python
oracle and against rc_points, bit for bit and in the same row order: plateau ranks that count
every distinct confidence (abstentions, undrawn participants and -0.0 beside 0.0 included),
multiplicities of one replicate, one or two threads; blocks that are not exact get no rows;
series that share a source (the same units under another loss scale) get the rows of their own
units."""

from __future__ import annotations

import struct
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sql_support import load_scored, rc_macro_fixture

from hypothesis_profiles import examples

con = pytest.fixture(scope="module")(rc_macro_fixture)


@st.composite
def scored_rows(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    """(series, population, participant_id, item_index, confidence, loss, loss_scale): series 0
    and 1 share population 0, series 2 is population 1; integer losses, few distinct
    confidences (so plateaus are shared), -0.0 beside 0.0, some abstentions."""
    rows = []
    for pop, series in ((0, (0, 1)), (1, (2,))):
        for pid in range(draw(st.integers(1, 5))):
            for item in range(draw(st.integers(1, 4))):
                abstained = draw(st.integers(0, 5)) == 0
                loss = None if abstained else float(draw(st.integers(0, 3)))
                for s in series:
                    conf = None if abstained else draw(st.sampled_from([0.9, 0.5, 0.0, -0.0, -0.25]))
                    rows.append((s, pop, 10 * pop + pid, item, conf, loss, 3.0 if s == 1 else 1.0))
    return rows


def _oracle(rows: list[tuple[Any, ...]], weight: dict[int, int]) -> list[tuple[Any, ...]]:
    """(series, plateau, threshold, k_cum, l_cum) per working point: plateau = rank of the
    distinct confidence among every unit of the series (NULL last); a point where a drawn
    participant predicted."""
    out = []
    for s in sorted({r[0] for r in rows}):
        units = [r for r in rows if r[0] == s]
        confidences = sorted({r[4] for r in units if r[4] is not None}, reverse=True)  # -0.0 == 0.0
        k = total = 0
        for rank, conf in enumerate(confidences, start=1):
            drawn = [r for r in units if r[4] == conf and r[2] in weight]
            if not drawn:
                continue
            k += sum(weight[r[2]] for r in drawn)
            total += sum(weight[r[2]] * int(r[5]) for r in drawn)
            out.append((s, rank, conf + 0.0, k, float(total)))  # -0.0 -> 0.0
    return out


def _bits(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [tuple(struct.pack("<d", v) if isinstance(v, float) else v for v in r) for r in rows]


def _load(con: duckdb.DuckDBPyConnection, rows: list[Any], samples: list[Any]) -> None:
    load_scored(con, rows, samples)
    con.execute("CREATE OR REPLACE TABLE totals AS FROM rc_totals('scored', 'samples')")


def _rows(
    con: duckdb.DuckDBPyConnection, macro: str, threads: int, scored: str = "scored", sources: str = "own"
) -> list[tuple[Any, ...]]:
    """The macro's points in their order; rc_points_once takes `sources` (`own`: each series of
    the totals its own source)."""
    con.execute(f"SET threads = {threads}")
    try:
        con.execute("CREATE OR REPLACE TEMP VIEW own AS SELECT series, series AS source FROM totals")
        extra = f", '{sources}'" if macro == "rc_points_once" else ""
        con.execute(f"CREATE OR REPLACE TABLE points AS FROM {macro}('{scored}', 'samples', 'totals'{extra})")
        return con.execute("FROM points ORDER BY rowid").fetchall()
    finally:
        con.execute("RESET threads")


@settings(max_examples=examples(60), deadline=None)
@given(rows=scored_rows(), seed=st.randoms(use_true_random=False))
def test_the_points_equal_the_oracle_and_rc_points_bit_for_bit(
    con: duckdb.DuckDBPyConnection, rows: list[Any], seed: Any
) -> None:
    people = sorted({r[2] for r in rows})
    # one replicate: some participants not drawn, others with multiplicity 0 to 3
    weight = {p: seed.randint(0, 3) for p in people if seed.random() < 0.8}
    _load(con, rows, [(0, p, m) for p, m in weight.items()])
    once = _rows(con, "rc_points_once", 1)
    assert [(r[0], r[2], r[3], r[4], r[5]) for r in once] == _oracle(rows, weight)
    expected = _rows(con, "rc_points", 1)
    assert _bits(once) == _bits(expected)
    assert _bits(_rows(con, "rc_points_once", 2)) == _bits(expected)


def test_blocks_that_are_not_exact_get_no_rows(con: duckdb.DuckDBPyConnection) -> None:
    rows = [(0, 0, 1, 0, 0.9, 0.25, 1.0), (0, 0, 2, 0, 0.5, 1.0, 1.0), (1, 1, 3, 0, 0.5, 2.0, 1.0)]
    _load(con, rows, [(0, 1, 1), (0, 2, 1), (0, 3, 1)])
    assert con.execute("SELECT series, exact FROM totals ORDER BY series").fetchall() == [
        (0, False),
        (1, True),
    ]
    got = _rows(con, "rc_points_once", 1)
    assert [(r[0], r[2], r[3], r[4], r[5]) for r in got] == [(1, 1, 0.5, 1, 2.0)]


def test_a_replicate_that_draws_nobody_has_no_points(con: duckdb.DuckDBPyConnection) -> None:
    """The property test's draw can leave every participant out (each kept with p = 0.8): the
    samples table is then empty, and so are the points of both macros."""
    rows = [(0, 0, 1, 0, 0.9, 1.0, 1.0), (2, 1, 2, 0, 0.5, 0.0, 1.0)]
    _load(con, rows, [])
    assert _oracle(rows, {}) == []
    assert _rows(con, "rc_points_once", 1) == _rows(con, "rc_points", 1) == []


@settings(max_examples=examples(40), deadline=None)
@given(rows=scored_rows(), seed=st.randoms(use_true_random=False))
def test_series_sharing_a_source_get_the_points_of_their_own_units_bit_for_bit(
    con: duckdb.DuckDBPyConnection, rows: list[Any], seed: Any
) -> None:
    """Series 1 holds series 0's units under loss scale 3 (as the warehouse's `abs_norm` series
    hold the `abs` ones'): given series 0's units only and 1's source 0, rc_points_once gives
    series 1 the rows of its own units, bit for bit, in the same order."""
    shared = [r for r in rows if r[0] != 1]
    full = shared + [(1, *r[1:6], 3.0) for r in shared if r[0] == 0]
    people = sorted({r[2] for r in full})
    weight = {p: seed.randint(0, 3) for p in people if seed.random() < 0.8}
    _load(con, full, [(0, p, m) for p, m in weight.items()])
    expected = _rows(con, "rc_points", 1)
    con.execute("CREATE OR REPLACE TABLE shared AS FROM scored WHERE series <> 1")
    con.execute(
        "CREATE OR REPLACE TABLE sources AS "
        "SELECT series, CASE WHEN series = 1 THEN 0 ELSE series END AS source FROM totals"
    )
    assert _bits(_rows(con, "rc_points_once", 1, "shared", "sources")) == _bits(expected)
    assert _bits(_rows(con, "rc_points_once", 2, "shared", "sources")) == _bits(expected)
