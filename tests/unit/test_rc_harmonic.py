"""rc_harmonic's exact prefix sums of floor(2^100 / j) and rc_harmonic_term's long division in
base 2^32, against Python's integers: every j up to a few thousand, and j around 2^31, where the
term switches from BIGINT digits to HUGEINT division."""

from __future__ import annotations

import duckdb
import pytest

from riskcov.resources import resource_dir


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for name in ("rc_harmonic_term", "rc_harmonic"):
        con.execute((resource_dir("sql") / f"{name}.sql").read_text())
    return con


@pytest.mark.parametrize("n", [0, 1, 2, 17, 4099])
def test_the_prefix_sums_are_pythons_exact_integers(con: duckdb.DuckDBPyConnection, n: int) -> None:
    expected, h = [(0, 0)], 0
    for j in range(1, n + 1):
        h += 2**100 // j
        expected.append((j, h))
    assert con.execute(f"FROM rc_harmonic({n}) ORDER BY k").fetchall() == expected
    assert con.execute(f"SELECT DISTINCT typeof(k), typeof(h) FROM rc_harmonic({n})").fetchall() == [
        ("BIGINT", "HUGEINT")
    ]


def test_each_term_is_the_exact_quotient_on_both_sides_of_2_to_the_31(con: duckdb.DuckDBPyConnection) -> None:
    js = [1, 3, 15, 16, 17, 2**20 + 7, 2**31 - 2, 2**31 - 1, 2**31, 2**31 + 1, 2**40 + 3, 10**12, 2**62]
    got = con.execute("SELECT j, rc_harmonic_term(j) FROM unnest(?::BIGINT[]) AS t(j) ORDER BY j", [js])
    assert got.fetchall() == [(j, 2**100 // j) for j in sorted(js)]
    assert con.execute("SELECT rc_harmonic_term(0::BIGINT)").fetchall() == [(0,)]
