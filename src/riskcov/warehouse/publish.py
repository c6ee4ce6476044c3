"""The BI snapshot: a copy of the warehouse (its metric tables included), swapped in atomically."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import duckdb

from riskcov.errors import LockedError, RiskcovError, UsageError
from riskcov.warehouse.connection import STORAGE_VERSION, check_database_file, lock_holder
from riskcov.warehouse.duckdb_helpers import one
from riskcov.warehouse.files import make_folder, stale_temps, temp_beside

SNAPSHOT_NAME = "riskcov-bi.duckdb"
# the warehouse's materialised metric tables (riskcov.warehouse.metric_tables), counted in the summary line
MATERIALISED = ("metrics", "rc_points")
_ALIAS = "riskcov_bi_snapshot"
_CHECKED = "riskcov_bi_previous"  # the snapshot being replaced, read before the copy


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
    """Rows of `table`, a quoted (and qualified) name."""
    row = one(con.execute(f"SELECT count(*) FROM {table}"))
    return int(row[0]) if row else 0


def _remove(path: Path) -> None:
    for leftover in (path, path.with_name(path.name + ".wal")):
        leftover.unlink(missing_ok=True)


def _copy_warehouse(con: duckdb.DuckDBPyConnection, database: str, tmp: Path, source: Path) -> dict[str, int]:
    """Copy the warehouse into `tmp` and stamp it; the row count of each of its tables.

    The copy is attached to the warehouse's own connection and stamped there: a connection of
    its own would start a second DuckDB instance and load the copy's catalog again. Its file is
    checkpointed before DETACH, so no WAL is left beside it when it is renamed into place."""
    # ATTACH pins the storage version per file, so DuckDB 1.4-1.5 readers open the copy
    con.execute(f"ATTACH {_literal(str(tmp))} AS {_ALIAS} (STORAGE_VERSION {_literal(STORAGE_VERSION)})")
    try:
        con.execute(f"COPY FROM DATABASE {_identifier(database)} TO {_ALIAS}")
        return _finish(con, source)
    finally:
        con.execute(f"DETACH {_ALIAS}")


def _finish(con: duckdb.DuckDBPyConnection, source: Path) -> dict[str, int]:
    # The metric tables came with the copy (the warehouse keeps them), so this only stamps it.
    con.execute(
        f"INSERT OR REPLACE INTO {_ALIAS}.warehouse_meta (key, value, updated_at) "
        "VALUES ('published_from', ?, now()::TIMESTAMP), ('published_at', "
        "CAST(now()::TIMESTAMP AS VARCHAR), now()::TIMESTAMP)",
        [str(source.resolve())],
    )
    names = [
        str(r[0])
        for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = ? ORDER BY table_name", [_ALIAS]
        ).fetchall()
    ]
    rows = {n: _count(con, f"{_ALIAS}.{_identifier(n)}") for n in names}
    con.execute(f"CHECKPOINT {_ALIAS}")
    return rows


def _check_target(con: duckdb.DuckDBPyConnection, target: Path) -> None:
    """Refuse to replace an existing file that is not a riskcov snapshot (a DuckDB file with
    `published_from` in its warehouse_meta); one held open read-only by a BI tool is still read,
    one held for writing is refused. Read through the warehouse's connection (ATTACH,
    read-only), not a second DuckDB instance."""
    check_database_file(target, "--to")
    if not target.exists():
        return
    refused = UsageError(
        f"--to {target}: the file is a DuckDB database but not a riskcov snapshot; riskcov will "
        "not overwrite it: give another path"
    )
    try:
        con.execute(f"ATTACH {_literal(str(target))} AS {_CHECKED} (READ_ONLY)")
    except duckdb.Error as exc:
        if "lock" in str(exc).lower():
            # a publish writes a temporary file, never the snapshot itself: what holds the
            # target for writing is another application (or a BI tool that should read it
            # read-only), and what it holds cannot be checked, so it is not replaced
            raise LockedError(
                f"--to {target}: the file is held for writing by {lock_holder(str(exc))}; riskcov "
                "replaces only a snapshot it can read: try again when it is released (BI tools "
                "should open the snapshot read-only)"
            ) from None
        raise refused from None
    try:
        row = one(con.execute(f"SELECT value FROM {_CHECKED}.warehouse_meta WHERE key = 'published_from'"))
    except duckdb.Error:
        row = None
    finally:
        con.execute(f"DETACH {_CHECKED}")
    if row is None:
        raise refused


def publish_snapshot(con: duckdb.DuckDBPyConnection, target: Path) -> Published:
    """Write the snapshot to a temporary file beside `target`, then rename it over `target`.

    A reader that has the old snapshot open keeps reading it until it reconnects; on any error
    the temporary file is removed and `target` is untouched.
    """
    database, source = _warehouse_file(con)
    if target.resolve() == source.resolve():
        raise UsageError(f"--to {target}: that is the warehouse itself; give another path")
    _check_target(con, target)
    make_folder(target.parent, f"--to {target}: cannot make its folder")
    for stale in stale_temps(target.parent, target.name):  # of a publish that was killed
        _remove(stale)
    tmp = temp_beside(target)
    _remove(tmp)
    try:
        rows = _copy_warehouse(con, database, tmp, source)
        os.replace(tmp, target)
    except duckdb.InterruptException:
        _remove(tmp)
        raise  # a Ctrl-C, not a failed publish: the CLI says it was interrupted
    except (duckdb.Error, OSError) as exc:
        _remove(tmp)
        raise RiskcovError(f"publish {target}: {(str(exc).splitlines() or [''])[0]}") from exc
    except BaseException:
        _remove(tmp)
        raise
    return Published(target, rows)
