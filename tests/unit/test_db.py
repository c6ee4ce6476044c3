"""db.registered and db.temp_table: numpy columns readable for one block or statement, and
never left registered, also when the block fails."""

import duckdb
import numpy as np
import pytest

from riskcov.warehouse.duckdb_helpers import registered, temp_table


def _names(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()]


def test_registered_is_gone_after_a_failing_block():
    con = duckdb.connect()
    with pytest.raises(KeyError), registered(con, "_cols", {"x": np.array([1, 2])}):
        assert con.execute("SELECT sum(x) FROM _cols").fetchall() == [(3,)]
        raise KeyError("stop")
    with pytest.raises(duckdb.CatalogException):
        con.execute("SELECT * FROM _cols").fetchall()


def test_temp_table_keeps_the_rows_not_the_columns():
    con = duckdb.connect()
    temp_table(con, "t", {"x": np.array([2.5, 1.0]), "k": np.array([1, 2])}, "k, x * 2 AS y")
    assert con.execute("SELECT k, y FROM t ORDER BY k").fetchall() == [(1, 5.0), (2, 2.0)]
    assert con.execute("SELECT temporary FROM duckdb_tables() WHERE table_name = 't'").fetchall() == [(True,)]
    with pytest.raises(duckdb.CatalogException):
        con.execute("SELECT * FROM _t_columns").fetchall()
    assert _names(con) == []


def test_memory_share_is_the_target_less_what_the_process_holds_outside_duckdb(monkeypatch):
    """memory_share: `process_bytes` less (resident set - DuckDB's memory usage), at least the
    floor; the floor where the resident set is unknown."""
    from riskcov.warehouse import duckdb_helpers

    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT range AS x FROM range(200000)")  # DuckDB holds some buffers
    used = con.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchone()[0]
    assert used > 0
    mib = 2**20
    for resident, expected in (
        (used + 100 * mib, 900 * mib),  # 100 MiB outside DuckDB: 1000 - 100
        (used + 950 * mib, 64 * mib),  # 950 outside: 50 left, below the floor
        (0, 1000 * mib),  # a resident set below DuckDB's own usage counts nothing outside
        (None, 64 * mib),  # unknown: the floor
    ):
        monkeypatch.setattr(duckdb_helpers, "resident_bytes", lambda r=resident: r)
        assert duckdb_helpers.memory_share(con, 1000 * mib, 64 * mib) == expected
