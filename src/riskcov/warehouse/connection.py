"""The warehouse file: where it is, a connection to it (pinned storage version, lock detection),
its storage version and its `warehouse_meta` entries."""

from __future__ import annotations

import os
import re
import stat
from contextlib import suppress
from pathlib import Path

import duckdb

from riskcov.errors import LockedError, RiskcovError, UsageError
from riskcov.warehouse.duckdb_helpers import one
from riskcov.warehouse.files import kind_of, make_folder, printable

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


def check_database_file(path: Path, flag: str = "--warehouse") -> None:
    """Refuse an existing file that is not a DuckDB database (DuckDB would open a .json or
    .csv as an empty in-memory database, and what is stored there is lost), or not a regular
    file at all. A path that does not exist yet is fine: it is created."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UsageError(f"{flag} {path}: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise UsageError(f"{flag} {path}: is {kind_of(mode)}, not a DuckDB database file")
    try:
        with path.open("rb") as f:
            head = f.read(12)
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot read: {exc.strerror}") from None
    if head[8:12] != b"DUCK":
        raise UsageError(
            f"{flag} {path}: the file exists and is not a DuckDB database; riskcov neither uses "
            "nor overwrites it: give another path"
        )


def lock_holder(text: str) -> str:
    """The process DuckDB's lock error names (pid and command line when the system shows them)."""
    pid = _PID.search(text)
    who = f"process {pid.group(1)}" if pid else "another process"
    if pid:
        with suppress(OSError):
            cmd = Path(f"/proc/{pid.group(1)}/cmdline").read_bytes().replace(b"\0", b" ").strip()
            who += f" ({printable(cmd.decode(errors='replace')[:120])})" if cmd else ""
    return who


def _locked_message(path: Path, text: str, read_only: bool) -> str:
    """Who holds the warehouse and what to do: wait for a writer; readers share it read-only;
    BI tools read the published snapshot."""
    who = lock_holder(text)
    if read_only:
        return f"warehouse {path} is being written by {who}; try again when it has finished"
    return (
        f"warehouse {path} is locked by {who}; wait for it or stop it. Commands that only read "
        "(runs, history, export, doctor) share the warehouse; BI tools belong on the published snapshot "
        "(riskcov publish), not on the warehouse"
    )


def connect(path: Path, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A raw connection, with DuckDB's lock error turned into a one-line LockedError."""
    check_database_file(path)
    config: dict[str, str | bool | int | float | list[str]] = (
        {} if read_only else {"storage_compatibility_version": STORAGE_VERSION}
    )
    if not read_only:
        make_folder(path.parent, f"--warehouse {path}: cannot make its folder")
    try:
        return quiet(duckdb.connect(str(path), read_only=read_only, config=config))
    except duckdb.IOException as exc:
        text = str(exc)
        if "lock" in text.lower():
            raise LockedError(_locked_message(path, text, read_only)) from exc
        raise RiskcovError(f"cannot open warehouse {path}: {text.splitlines()[0]}") from exc


META_SQL = "SELECT key, value FROM warehouse_meta"


def meta(con: duckdb.DuckDBPyConnection) -> dict[str, str] | None:
    """`warehouse_meta`'s entries; None where the file holds no such table (a new file before
    its migrations, or whatever another application's file holds under that name)."""
    try:
        return dict(con.execute(META_SQL).fetchall())
    except (duckdb.CatalogException, duckdb.BinderException):
        return None


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
