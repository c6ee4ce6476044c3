"""The BI snapshot: a copy of the warehouse with materialised metrics, swapped in atomically."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import duckdb

from riskcov import __version__
from riskcov.db import one, transaction
from riskcov.errors import RiskcovError, UsageError
from riskcov.resources import resource_dir
from riskcov.warehouse import STORAGE_VERSION, connect

SNAPSHOT_NAME = "riskcov-bi.duckdb"
# stored as tables in the snapshot (and exported as files): the queries of sql/bi/<name>.sql
MATERIALISED = ("metrics", "rc_points")
# the snapshot's build: each table, then its view recreated over it (sql/bi/v_*.sql), so the
# README's queries are scans there; rc_points first, so that v_metrics' rc_summary reads the
# stored points through v_rc_points instead of recomputing them
SNAPSHOT_STEPS = (("rc_points", "v_rc_points"), ("metrics", "v_metrics"))
_ALIAS = "riskcov_bi_snapshot"
_PREVIOUS = "riskcov_bi_previous"
# evaluate's own output: nothing it holds feeds metrics or rc_points
# evaluate's and the seed-004 commands' outputs, and the ledger: no metric reads them
_NOT_INPUTS = ("evaluation", "warehouse_meta", "command_runs", "risk_control_results", "ood_results")


@dataclass(frozen=True)
class Published:
    """Where the snapshot went and the row count of each of its tables."""

    path: Path
    rows: dict[str, int]

    def summary(self) -> str:
        """One line for the console.

        >>> Published(Path("bi.duckdb"), {"runs": 1, "metrics": 52, "rc_points": 9}).summary()
        'published bi.duckdb: metrics 52 rows, rc_points 9 rows'
        """
        return f"published {self.path}: " + ", ".join(f"{n} {self.rows[n]} rows" for n in MATERIALISED)


def resolve_target(to: str | Path | None, warehouse: Path) -> Path:
    """--to, else $RISKCOV_BI_PATH, else riskcov-bi.duckdb beside the warehouse file.

    >>> resolve_target(None, Path("warehouse") / "riskcov.duckdb").as_posix()
    'warehouse/riskcov-bi.duckdb'
    """
    if to:
        return Path(to)
    env = os.environ.get("RISKCOV_BI_PATH")
    return Path(env) if env else warehouse.parent / SNAPSHOT_NAME


def auto_publish_enabled(no_publish: bool) -> bool:
    """Writing commands publish unless --no-publish or RISKCOV_PUBLISH=0."""
    return not no_publish and os.environ.get("RISKCOV_PUBLISH", "1").strip() != "0"


def bi_sql(name: str) -> str:
    """The text of sql/bi/<name>.sql.

    >>> bi_sql("metrics").splitlines()[-1]
    'ORDER BY experiment_id, csf, loss'
    """
    return (resource_dir("sql") / "bi" / f"{name}.sql").read_text().strip()


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _identifier(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _warehouse_file(con: duckdb.DuckDBPyConnection) -> tuple[str, Path]:
    row = one(
        con.execute(
            "SELECT current_database(), path FROM duckdb_databases() WHERE database_name = current_database()"
        )
    )
    assert row is not None
    return str(row[0]), Path(str(row[1]))


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    row = one(con.execute(f"SELECT count(*) FROM {_identifier(table)}"))
    return int(row[0]) if row else 0


def _remove(path: Path) -> None:
    for leftover in (path, path.with_name(path.name + ".wal")):
        leftover.unlink(missing_ok=True)


def _copy_warehouse(con: duckdb.DuckDBPyConnection, database: str, tmp: Path) -> None:
    # ATTACH pins the storage version per file, so DuckDB 1.4-1.5 readers open the copy
    con.execute(f"ATTACH {_literal(str(tmp))} AS {_ALIAS} (STORAGE_VERSION {_literal(STORAGE_VERSION)})")
    try:
        con.execute(f"COPY FROM DATABASE {_identifier(database)} TO {_ALIAS}")
    finally:
        con.execute(f"DETACH {_ALIAS}")


def inputs_fingerprint(con: duckdb.DuckDBPyConnection) -> str:
    """A digest of everything metrics and rc_points are computed from: the code (the installed
    sql/ objects, riskcov and DuckDB versions) and the rows of every table but evaluate's outputs."""
    # the installed SQL by its source digest: DuckDB's rendering of a stored macro is not stable
    # across processes (an EXCLUDE list comes back in either order)
    installed = one(con.execute("SELECT value FROM warehouse_meta WHERE key = 'sql_objects_sha256'"))
    parts = [__version__, duckdb.__version__, str(installed[0] if installed else None)]
    for (table,) in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() ORDER BY table_name"
    ).fetchall():
        if not str(table).startswith(_NOT_INPUTS):
            # an order-free digest of the rows (tables have keys: no duplicate rows to cancel)
            row = one(con.execute(f"SELECT count(*), sum(hash(t)::HUGEINT) FROM {_identifier(table)} AS t"))
            parts.append(f"{table}\0{row}")
    return hashlib.sha256("\0\0".join(parts).encode()).hexdigest()


def _previous_fingerprint(snap: duckdb.DuckDBPyConnection, previous: Path) -> str | None:
    """The inputs fingerprint recorded in the snapshot being replaced, if it is readable."""
    if not previous.is_file():
        return None
    try:
        snap.execute(f"ATTACH {_literal(str(previous))} AS {_PREVIOUS} (READ_ONLY)")
    except duckdb.Error:
        return None  # not a DuckDB file, or locked: rebuild from scratch
    row = one(snap.execute(f"SELECT max(value) FROM {_PREVIOUS}.warehouse_meta WHERE key = 'inputs_sha256'"))
    return str(row[0]) if row and row[0] else None


def _materialise(tmp: Path, source: Path, previous: Path, fingerprint: str) -> dict[str, int]:
    # A connection of its own: the snapshot is the default catalog, as for a BI client
    snap = connect(tmp)
    try:
        # same inputs as the snapshot being replaced (evaluate, an unchanged migrate, a second
        # publish): its metric tables are still right, and copying them skips the recomputation
        reuse = _previous_fingerprint(snap, previous) == fingerprint
        with transaction(snap):
            for table, view in SNAPSHOT_STEPS:
                query = f"SELECT * FROM {_PREVIOUS}.{table}" if reuse else bi_sql(table)
                snap.execute(f"CREATE TABLE {table} AS {query}")
                snap.execute(bi_sql(view))
            snap.execute(
                "INSERT OR REPLACE INTO warehouse_meta (key, value, updated_at) "
                "VALUES ('published_from', ?, now()::TIMESTAMP), ('published_at', "
                "CAST(now()::TIMESTAMP AS VARCHAR), now()::TIMESTAMP), "
                "('inputs_sha256', ?, now()::TIMESTAMP)",
                [str(source.resolve()), fingerprint],
            )
        names = [
            str(r[0])
            for r in snap.execute(
                "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
                "ORDER BY table_name"
            ).fetchall()
        ]
        rows = {n: _count(snap, n) for n in names}
        snap.execute("CHECKPOINT")
        return rows
    finally:
        snap.close()


def publish_snapshot(con: duckdb.DuckDBPyConnection, target: Path) -> Published:
    """Write the snapshot to a temporary file beside `target`, then rename it over `target`.

    A reader that has the old snapshot open keeps reading it until it reconnects; on any error
    the temporary file is removed and `target` is untouched.
    """
    database, source = _warehouse_file(con)
    if target.resolve() == source.resolve():
        raise UsageError(f"--to {target}: that is the warehouse itself; give another path")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    _remove(tmp)
    try:
        fingerprint = inputs_fingerprint(con)
        _copy_warehouse(con, database, tmp)
        rows = _materialise(tmp, source, target, fingerprint)
        os.replace(tmp, target)
    except (duckdb.Error, OSError) as exc:
        _remove(tmp)
        raise RiskcovError(f"publish {target}: {(str(exc).splitlines() or [''])[0]}") from exc
    except BaseException:
        _remove(tmp)
        raise
    return Published(target, rows)
