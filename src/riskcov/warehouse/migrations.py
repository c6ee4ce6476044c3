"""Schema migrations: `migrations/NNNN_name.sql`, each applied with its ledger row in one transaction."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from riskcov.errors import MigrationError, UsageError
from riskcov.resources import resource_dir
from riskcov.warehouse.connection import META_SQL
from riskcov.warehouse.duckdb_helpers import one, transaction

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")

LEDGER_DDL = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name VARCHAR NOT NULL,
    sha256 VARCHAR NOT NULL,
    applied_at TIMESTAMP NOT NULL
)
"""


@dataclass(frozen=True)
class Migration:
    """One migration file."""

    version: int
    name: str
    sql: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


@dataclass(frozen=True)
class MigrationStatus:
    """A migration and whether (and when) the warehouse applied it."""

    migration: Migration
    applied_at: str | None


def load_migrations(folder: Path | None = None) -> list[Migration]:
    """Every migration the code knows, in version order.

    >>> [m.version for m in load_migrations()][:1]
    [1]
    """
    folder = folder or resource_dir("migrations")
    found: list[Migration] = []
    for path in sorted(folder.glob("*.sql")):
        match = _NAME.match(path.name)
        if not match:
            raise MigrationError(f"{path.name}: migration files are named NNNN_name.sql")
        found.append(Migration(int(match.group(1)), match.group(2), path.read_text()))
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise MigrationError(f"{folder}: two migrations share a version number")
    return found


def _applied(con: duckdb.DuckDBPyConnection, *, ledger: bool = False) -> dict[int, tuple[str, str, str]]:
    """The ledger's rows; `ledger=True`: the ledger is known to exist (migrate just made sure;
    the first duckdb_tables() of a connection is slow enough to show in every CLI call)."""
    if not ledger:
        has_ledger = one(
            con.execute(
                "SELECT count(*) FROM duckdb_tables() "
                "WHERE table_name = 'schema_migrations' AND schema_name = 'main' AND NOT temporary"
            )
        )
        if not has_ledger or not has_ledger[0]:
            return {}
    rows = con.execute(
        "SELECT version, name, sha256, CAST(applied_at AS VARCHAR) FROM schema_migrations"
    ).fetchall()
    return {int(v): (str(n), str(s), str(a)) for v, n, s, a in rows}


def status(
    con: duckdb.DuckDBPyConnection | None, known: list[Migration], *, ledger: bool = False
) -> list[MigrationStatus]:
    """Check the ledger against the code; raise on a changed or unknown migration (`ledger`:
    the ledger table is known to exist)."""
    applied = _applied(con, ledger=ledger) if con is not None else {}
    by_version = {m.version: m for m in known}
    for version, (name, sha, _) in sorted(applied.items()):
        mig = by_version.get(version)
        if mig is None:
            raise MigrationError(
                f"warehouse has migration {version:04d}_{name} applied, which this riskcov does "
                "not know: it was written by a newer riskcov; upgrade riskcov"
            )
        if mig.sha256 != sha:
            raise MigrationError(
                f"migration {version:04d}_{mig.name}.sql changed after it was applied "
                f"(applied sha256 {sha[:12]}, file sha256 {mig.sha256[:12]}); "
                "restore it and add a new migration instead"
            )
    return [MigrationStatus(m, applied.get(m.version, (None, None, None))[2]) for m in known]


def _path(con: duckdb.DuckDBPyConnection) -> str:
    row = one(con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()"))
    return str(row[0]) if row else ""


def refuse_foreign(con: duckdb.DuckDBPyConnection, meta: dict[str, str] | None = None) -> None:
    """Refuse a database that holds tables or views but no migration ledger: another
    application's DuckDB file, which migrating would fill with riskcov's schema. An empty
    database (a new file) becomes a warehouse. Refuse a BI snapshot too: what is written there
    is lost at the next publish. `meta`: warehouse_meta's entries if the caller read them."""
    try:
        con.execute("SELECT 1 FROM main.schema_migrations LIMIT 0")
    except duckdb.CatalogException:
        pass
    else:
        try:
            entries = meta if meta is not None else dict(con.execute(META_SQL).fetchall())
        except duckdb.CatalogException:
            return
        source = entries.get("published_from")
        if source:
            raise UsageError(
                f"warehouse {_path(con)}: the file is a BI snapshot published from {source}; the "
                "next publish replaces it, so riskcov writes only to the warehouse: give --warehouse "
                f"{source}"
            )
        return
    names = con.execute(
        "SELECT schema_name || '.' || table_name FROM duckdb_tables() "
        "WHERE database_name = current_database() AND NOT temporary "
        "UNION ALL SELECT schema_name || '.' || view_name FROM duckdb_views() "
        "WHERE database_name = current_database() AND NOT temporary AND NOT internal ORDER BY 1"
    ).fetchall()
    if names:
        shown = ", ".join(str(n[0]) for n in names[:3]) + (", ..." if len(names) > 3 else "")
        raise UsageError(
            f"warehouse {_path(con)}: the file is a DuckDB database of another application "
            f"({shown}; no riskcov schema_migrations); riskcov neither uses nor changes it: give another path"
        )


def migrate(
    con: duckdb.DuckDBPyConnection,
    known: list[Migration] | None = None,
    *,
    meta: dict[str, str] | None = None,
) -> list[Migration]:
    """Apply pending migrations in order; return those applied. `meta`: warehouse_meta's
    entries if the caller read them (refuse_foreign)."""
    known = load_migrations() if known is None else sorted(known, key=lambda m: m.version)
    refuse_foreign(con, meta)
    con.execute(LEDGER_DDL)
    pending = [s.migration for s in status(con, known, ledger=True) if s.applied_at is None]
    for mig in pending:
        try:
            with transaction(con):
                con.execute(mig.sql)
                con.execute(
                    "INSERT INTO schema_migrations VALUES (?, ?, ?, now()::TIMESTAMP)",
                    [mig.version, mig.name, mig.sha256],
                )
        except duckdb.Error as exc:
            first = str(exc).splitlines()[0]
            raise MigrationError(
                f"migration {mig.version:04d}_{mig.name}.sql failed and was rolled back: {first}"
            ) from exc
    return pending
