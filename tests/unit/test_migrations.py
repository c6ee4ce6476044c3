"""Schema migrations: order, ledger, checksum and version guards, rollback (the `riskcov migrate`
command: tests/functional/test_migrate_cli.py)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pytest

from riskcov.errors import MigrationError
from riskcov.warehouse.migrations import Migration, load_migrations, migrate, status

pytestmark = pytest.mark.fresh_warehouse  # these tests create and migrate warehouses

M1 = Migration(1, "first", "CREATE TABLE t1 (x INTEGER);")
M2 = Migration(2, "second", "CREATE TABLE t2 AS SELECT x + 1 AS y FROM t1;")
M3 = Migration(3, "third", "INSERT INTO t1 VALUES (7);")


@pytest.fixture
def con(tmp_path: Path):
    c = duckdb.connect(str(tmp_path / "m.duckdb"))
    yield c
    c.close()


def ledger(con: duckdb.DuckDBPyConnection) -> list[tuple[int, str, str]]:
    return con.execute("SELECT version, name, sha256 FROM schema_migrations ORDER BY version").fetchall()


def tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [
        r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY table_name").fetchall()
    ]


def test_sha256_is_of_the_sql_text():
    assert M1.sha256 == hashlib.sha256(b"CREATE TABLE t1 (x INTEGER);").hexdigest()


def test_applies_in_version_order_and_writes_the_ledger(con):
    # given out of order: 2 needs the table of 1, 3 fills it
    applied = migrate(con, known=[M3, M2, M1])
    assert [m.version for m in applied] == [1, 2, 3]
    assert ledger(con) == [(1, "first", M1.sha256), (2, "second", M2.sha256), (3, "third", M3.sha256)]
    applied_at = con.execute("SELECT applied_at FROM schema_migrations ORDER BY version").fetchall()
    assert applied_at == sorted(applied_at)
    assert tables(con) == ["schema_migrations", "t1", "t2"]
    assert con.execute("SELECT x FROM t1").fetchall() == [(7,)]


def test_only_pending_migrations_run(con):
    assert migrate(con, known=[M1]) == [M1]
    assert migrate(con, known=[M1, M2]) == [M2]
    assert migrate(con, known=[M1, M2]) == []
    assert ledger(con) == [(1, "first", M1.sha256), (2, "second", M2.sha256)]


def test_status_reports_applied_and_pending(con):
    migrate(con, known=[M1])
    got = status(con, [M1, M2])
    assert [(s.migration.version, s.applied_at is None) for s in got] == [(1, False), (2, True)]
    assert [s.migration.version for s in status(None, [M1, M2])] == [1, 2]


def test_changed_checksum_is_refused(con):
    migrate(con, known=[M1])
    edited = Migration(1, "first", "CREATE TABLE t1 (x BIGINT);")
    with pytest.raises(MigrationError) as info:
        migrate(con, known=[edited, M2])
    assert str(info.value) == (
        f"migration 0001_first.sql changed after it was applied (applied sha256 "
        f"{M1.sha256[:12]}, file sha256 {edited.sha256[:12]}); restore it and add a new "
        "migration instead"
    )
    assert info.value.exit_code == 4
    assert tables(con) == ["schema_migrations", "t1"]  # M2 was not applied either


def test_newer_unknown_version_is_refused(con):
    migrate(con, known=[M1, M2])
    with pytest.raises(MigrationError) as info:
        migrate(con, known=[M1])
    assert str(info.value) == (
        "warehouse has migration 0002_second applied, which this riskcov does not know: it was "
        "written by a newer riskcov; upgrade riskcov"
    )
    assert info.value.exit_code == 4


def test_failing_migration_is_rolled_back(con):
    bad = Migration(
        2,
        "broken",
        "CREATE TABLE t_new (y INTEGER);\nINSERT INTO t1 VALUES (1);\nSELECT * FROM no_such_table;",
    )
    with pytest.raises(MigrationError) as info:
        migrate(con, known=[M1, bad, M3])
    assert str(info.value) == (
        "migration 0002_broken.sql failed and was rolled back: Catalog Error: Table with name "
        "no_such_table does not exist!"
    )
    assert tables(con) == ["schema_migrations", "t1"]
    assert con.execute("SELECT count(*) FROM t1").fetchall() == [(0,)]
    assert ledger(con) == [(1, "first", M1.sha256)]


def shipped_files() -> list[Path]:
    return sorted((Path(__file__).resolve().parents[2] / "migrations").glob("*.sql"))


def test_load_migrations_reads_the_shipped_folder():
    found = load_migrations()
    files = shipped_files()
    assert files[0].name == "0001_core.sql"
    assert [f"{m.version:04d}_{m.name}.sql" for m in found] == [f.name for f in files]
    assert [m.version for m in found] == list(range(1, len(files) + 1))
    assert [m.sha256 for m in found] == [hashlib.sha256(f.read_bytes()).hexdigest() for f in files]


def test_load_migrations_rejects_bad_names_and_duplicate_versions(tmp_path):
    (tmp_path / "0001_a.sql").write_text("SELECT 1;")
    (tmp_path / "0001_b.sql").write_text("SELECT 1;")
    with pytest.raises(MigrationError) as info:
        load_migrations(tmp_path)
    assert str(info.value) == f"{tmp_path}: two migrations share a version number"
    (tmp_path / "0001_b.sql").unlink()
    (tmp_path / "2-Bad.sql").write_text("SELECT 1;")
    with pytest.raises(MigrationError) as info:
        load_migrations(tmp_path)
    assert str(info.value) == "2-Bad.sql: migration files are named NNNN_name.sql"


def _rc_points_state(con: duckdb.DuckDBPyConnection) -> tuple[object, ...]:
    rows = con.execute("SELECT * FROM rc_points ORDER BY rowid").fetchall()
    keys = con.execute(
        "SELECT constraint_type FROM duckdb_constraints() WHERE table_name = 'rc_points' "
        "AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')"
    ).fetchall()
    columns = con.execute(
        "SELECT column_name, data_type, is_nullable, comment FROM duckdb_columns() "
        "WHERE table_name = 'rc_points' ORDER BY column_index"
    ).fetchall()
    table = con.execute("SELECT comment FROM duckdb_tables() WHERE table_name = 'rc_points'").fetchall()
    return rows, keys, columns, table


def test_0008_rebuilds_rc_points_without_its_key_rows_in_storage_order(con):
    known = load_migrations()
    migrate(con, known=[m for m in known if m.version < 8])
    # two experiments' points, the later experiment stored first (as rounds of CSFs store them)
    row = (
        "({e}, '{csf}', 'abs_norm', 0, {p}, 0.5, {p}, 0.25, 8, 4, 0.125, 0.0625, 0.03125, "
        "NULL, NULL, NULL, 0.5)"
    )
    values = [row.format(e=e, csf=csf, p=p) for e, csf in ((2, "b"), (1, "a"), (2, "a")) for p in (1, 2)]
    con.execute(f"INSERT INTO rc_points VALUES {', '.join(values)}")
    rows, keys, columns, table = _rc_points_state(con)
    assert keys == [("PRIMARY KEY",)]
    assert len(columns) == 17 and all(c[3] for c in columns) and table[0][0]
    assert [m.version for m in migrate(con, known=[m for m in known if m.version <= 8])] == [8]
    # the same rows in the same order, the same columns (types, NOT NULLs, descriptions), no key
    assert _rc_points_state(con) == (rows, [], columns, table)
    assert [r[:2] for r in rows[::2]] == [(2, "b"), (1, "a"), (2, "a")]
    # the key's uniqueness is no longer enforced by the table: materialise writes each point once
    con.execute("INSERT INTO rc_points SELECT * FROM rc_points LIMIT 1")
    assert con.execute("SELECT count(*) FROM rc_points").fetchall() == [(7,)]
