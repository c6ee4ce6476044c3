"""`evaluate` builds rc_cells once per evaluation (TEMP TABLE eval_cells) and composes
rc_plateaus over it with rc_running, chunk by chunk; rc_points composes the same macros over
a CTE. Both give the same working points, bit for bit and in the same row order, on integer
and continuous losses with shared plateaus and weighted replicates; so does the exact blocks'
one packed running sum (rc_running_exact_packed) with the unit engine.packing_unit grants."""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import pytest
from sql_support import rc_macro_connection

from riskcov.metrics import engine

# (series, population, participant_id, item_index, confidence, loss, loss_scale): series 0 has
# integer losses, series 1 (population 1) continuous ones; 0.5 is shared by participants
ROWS = [
    (0, 0, 1, 0, 0.9, 1.0, 3.0),
    (0, 0, 1, 1, 0.5, 2.0, 3.0),
    (0, 0, 2, 0, 0.5, 0.0, 3.0),
    (0, 0, 2, 1, None, None, 3.0),
    (0, 0, 3, 0, 0.25, 3.0, 3.0),
    (1, 1, 1, 0, 0.5, 0.1, 1.0),
    (1, 1, 2, 0, 0.5, 1 / 3, 1.0),
    (1, 1, 3, 0, 0.7, 0.37, 1.0),
    (1, 1, 3, 1, 0.1, 2.5, 1.0),
]
SAMPLES = [(0, 1, 1), (0, 2, 1), (0, 3, 1), (1, 1, 2), (1, 3, 1), (2, 2, 3), (3, 1, 1), (3, 2, 1), (3, 3, 1)]


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    c = rc_macro_connection()
    c.execute(
        "CREATE TABLE eval_scored (series INTEGER, population INTEGER, participant_id BIGINT, "
        "item_index INTEGER, confidence DOUBLE, loss DOUBLE, loss_scale DOUBLE)"
    )
    c.executemany("INSERT INTO eval_scored VALUES (?, ?, ?, ?, ?, ?, ?)", ROWS)
    c.execute("CREATE TABLE eval_samples (replicate INTEGER, participant_id BIGINT, multiplicity INTEGER)")
    c.executemany("INSERT INTO eval_samples VALUES (?, ?, ?)", SAMPLES)
    c.execute("CREATE TABLE eval_totals AS FROM rc_totals('eval_scored', 'eval_samples')")
    c.execute("CREATE TABLE eval_cells AS FROM rc_cells('eval_scored')")
    yield c
    c.close()


def test_cells_built_once_give_rc_points_bit_for_bit(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("CREATE TABLE once AS " + engine.POINTS_SQL.format(running="rc_running", unit=""))
    con.execute("CREATE TABLE fast AS " + engine.POINTS_SQL.format(running="rc_running_exact", unit=""))
    # evaluate keeps every column of rc_points but k_total (its blocks' totals are in eval_totals)
    con.execute(
        "CREATE TABLE direct AS SELECT * EXCLUDE (k_total) "
        "FROM rc_points('eval_scored', 'eval_samples', 'eval_totals')"
    )
    columns = "SELECT list(column_name ORDER BY column_index) FROM duckdb_columns() WHERE table_name = ?"
    assert con.execute(columns, ["once"]).fetchall() == con.execute(columns, ["direct"]).fetchall()
    once = con.execute("SELECT * FROM once ORDER BY rowid").fetchall()
    direct = con.execute("SELECT * FROM direct ORDER BY rowid").fetchall()
    assert once == direct
    # the fast path gives the exact blocks' rows (series 0: integer losses) and no others
    exact = con.execute("SELECT series, replicate FROM eval_totals WHERE exact").fetchall()
    assert {s for s, _ in exact} == {0}
    fast = con.execute("SELECT * FROM fast ORDER BY rowid").fetchall()
    assert fast == [r for r in once if (r[0], r[1]) in set(exact)]
    unit = engine.packing_unit(*con.execute(engine.PACKING_SQL).fetchone())
    assert unit == 32.0  # the exact blocks' losses add up to 21 (6 + 9 + 0 + 6: series 0)
    packed = engine.POINTS_SQL.format(running="rc_running_exact_packed", unit=", $unit")
    con.execute("CREATE TABLE packed AS " + packed, {"unit": unit})
    assert con.execute(columns, ["packed"]).fetchall() == con.execute(columns, ["fast"]).fetchall()
    assert repr(con.execute("SELECT * FROM packed ORDER BY rowid").fetchall()) == repr(fast)
    # replicate 1 draws participant 1 twice and participant 3 once: (series, plateau, k_cum)
    assert [(r[0], r[2], r[4]) for r in once if r[1] == 1] == [
        (0, 1, 2),
        (0, 2, 4),
        (0, 3, 5),
        (1, 1, 1),
        (1, 2, 3),
        (1, 3, 4),
    ]
    assert [r[5] for r in once if r[0] == 0 and r[1] == 1] == [2.0, 6.0, 9.0]
