"""The warehouse file: where it is, a connection to it (pinned storage version, lock detection),
its storage version and its `warehouse_meta` entries."""

from __future__ import annotations

import os
import re
from pathlib import Path

import duckdb

from riskcov.db import one
from riskcov.errors import LockedError, RiskcovError

DEFAULT_PATH = Path("warehouse") / "riskcov.duckdb"
# BI drivers embed DuckDB 1.4-1.5, which cannot open the 2.0 default storage format.
STORAGE_VERSION = "v1.4.0"
_PID = re.compile(r"PID (\d+)")


# `riskcov --warehouse W COMMAND`: the group's option, for commands not given their own
GROUP_PATH: Path | None = None


def resolve_path(path: str | Path | None) -> Path:
    """--warehouse (the command's, then the group's), else $RISKCOV_WAREHOUSE, else
    warehouse/riskcov.duckdb."""
    if path:
        return Path(path)
    if GROUP_PATH is not None:
        return GROUP_PATH
    env = os.environ.get("RISKCOV_WAREHOUSE")
    return Path(env) if env else DEFAULT_PATH


def quiet(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """The connection without DuckDB's own progress bar on long queries (stdout belongs to
    --json); a setting of each connection, cursors included."""
    con.execute("SET enable_progress_bar = false")
    return con


def connect(path: Path, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A raw connection, with DuckDB's lock error turned into a one-line LockedError."""
    config: dict[str, str | bool | int | float | list[str]] = (
        {} if read_only else {"storage_compatibility_version": STORAGE_VERSION}
    )
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        return quiet(duckdb.connect(str(path), read_only=read_only, config=config))
    except duckdb.IOException as exc:
        text = str(exc)
        if "lock" in text.lower():
            pid = _PID.search(text)
            who = f"process {pid.group(1)}" if pid else "another process"
            raise LockedError(
                f"warehouse {path} is locked by {who}; close it or use another --warehouse"
            ) from exc
        raise RiskcovError(f"cannot open warehouse {path}: {text.splitlines()[0]}") from exc


def set_meta(con: duckdb.DuckDBPyConnection, key: str, value: str) -> None:
    """Record one `warehouse_meta` entry (versions, the SQL objects' digest)."""
    con.execute(
        "INSERT OR REPLACE INTO warehouse_meta (key, value, updated_at) VALUES (?, ?, now()::TIMESTAMP)",
        [key, value],
    )


def storage_version(con: duckdb.DuckDBPyConnection) -> str:
    """The storage version DuckDB reports for the open database file."""
    row = one(
        con.execute(
            "SELECT tags['storage_version'] FROM duckdb_databases() WHERE database_name = current_database()"
        )
    )
    return str(row[0]) if row and row[0] else "unknown"
