"""`riskcov migrate`: --list reads without writing, and a changed migration is refused in one line."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from riskcov.warehouse.migrations import Migration, load_migrations, migrate

pytestmark = pytest.mark.fresh_warehouse  # these tests create and migrate warehouses


def shipped_files() -> list[Path]:
    return sorted((Path(__file__).resolve().parents[2] / "migrations").glob("*.sql"))


def test_migrate_list_on_a_missing_file_creates_nothing(tmp_path, run_cli):
    path = tmp_path / "sub" / "absent.duckdb"
    result = run_cli(["migrate", "--list", "--warehouse", path])
    expected = "".join(f"{f.stem}  pending\n" for f in shipped_files())
    assert (result.exit_code, result.stdout, result.stderr) == (0, expected, "")
    assert list(tmp_path.iterdir()) == []


def test_migrate_list_leaves_an_existing_file_byte_identical(tmp_path, run_cli):
    path = tmp_path / "w.duckdb"
    result = run_cli(["migrate", "--warehouse", path])
    expected = "".join(f"applied {f.stem}\n" for f in shipped_files())
    assert (result.exit_code, result.stdout) == (0, expected)
    assert run_cli(["migrate", "--warehouse", path]).stdout == "up to date\n"
    before = path.read_bytes()
    files = sorted(p.name for p in tmp_path.iterdir())
    result = run_cli(["migrate", "--list", "--warehouse", path])
    assert result.exit_code == 0
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == files
    with duckdb.connect(str(path), read_only=True) as con:
        rows = con.execute(
            "SELECT version, name, CAST(applied_at AS VARCHAR) FROM schema_migrations ORDER BY version"
        ).fetchall()
    assert len(rows) == len(shipped_files())
    assert result.stdout == "".join(f"{v:04d}_{n}  applied {at[:19]}\n" for v, n, at in rows)


def test_migrate_command_reports_a_changed_migration(tmp_path, run_cli):
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    migrate(con, known=[Migration(1, "core", "CREATE TABLE old_core (x INTEGER);")])
    con.close()
    result = run_cli(["migrate", "--warehouse", path])
    shipped = load_migrations()[0].sha256
    old = Migration(1, "core", "CREATE TABLE old_core (x INTEGER);").sha256
    assert result.exit_code == 4
    assert result.stderr == (
        f"error: migration 0001_core.sql changed after it was applied (applied sha256 "
        f"{old[:12]}, file sha256 {shipped[:12]}); restore it and add a new migration instead\n"
    )
