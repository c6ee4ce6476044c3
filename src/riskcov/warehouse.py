"""Open the DuckDB warehouse: pinned storage version, lock detection, migrations, SQL objects."""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import duckdb

from riskcov import __version__
from riskcov.db import one, transaction
from riskcov.errors import LockedError, RiskcovError, UsageError
from riskcov.files import kind_of, printable
from riskcov.migrations import migrate
from riskcov.resources import resource_dir

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


def connect(path: Path, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A raw connection, with DuckDB's lock error turned into a one-line LockedError."""
    check_database_file(path)
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
            raise LockedError(_locked_message(path, text, read_only)) from exc
        raise RiskcovError(f"cannot open warehouse {path}: {text.splitlines()[0]}") from exc


def _locked_message(path: Path, text: str, read_only: bool) -> str:
    """Who holds the warehouse (pid and command line when the system shows them) and what to
    do: wait for a writer; readers share it read-only; BI tools read the published snapshot."""
    pid = _PID.search(text)
    who = f"process {pid.group(1)}" if pid else "another process"
    if pid:
        with suppress(OSError):
            cmd = Path(f"/proc/{pid.group(1)}/cmdline").read_bytes().replace(b"\0", b" ").strip()
            who += f" ({printable(cmd.decode(errors='replace')[:120])})" if cmd else ""
    if read_only:
        return f"warehouse {path} is being written by {who}; try again when it has finished"
    return (
        f"warehouse {path} is locked by {who}; wait for it or stop it. Commands that only read "
        "(runs, history, export) share the warehouse; BI tools belong on the published snapshot "
        "(riskcov publish), not on the warehouse"
    )


def _sql_objects(con: duckdb.DuckDBPyConnection, *, compile_user: bool = True) -> list[tuple[str, str]]:
    """sql/*.sql and the generated CSF view (the registry's CSFs and the user's stored ones);
    `compile_user=False` puts the stored expressions' text in place of their SQL, which is all
    the digest needs (compiling imports sqlglot, slow to import on every open)."""
    from riskcov.scoring.confidences import confidences_view_sql
    from riskcov.scoring.user_csf_store import listing, stored

    folder = resource_dir("sql")
    if compile_user:
        view = confidences_view_sql(stored(con).values())
    else:
        rows = listing(con)
        view = confidences_view_sql() + "".join(f"\0{r.name}\0{r.expression}" for r in rows)
        view += f"\0{__version__}" if rows else ""  # the compiler's output may change with it
    generated = [("v_csf_confidences", view)]
    return generated + [(p.stem, p.read_text()) for p in sorted(folder.glob("*.sql"))]


def _dependency_order(objects: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each object after the objects its SQL names (views bind when created)."""
    names = {n for n, _ in objects}
    code = {n: re.sub(r"--[^\n]*", "", sql) for n, sql in objects}  # comments name things too
    needs = {n: {m for m in names if m != n and re.search(rf"\b{m}\b", code[n])} for n, _ in objects}
    ordered: list[tuple[str, str]] = []
    done: set[str] = set()
    pending = list(objects)
    while pending:
        ready = [(n, sql) for n, sql in pending if needs[n] <= done]
        if not ready:
            raise RiskcovError("sql/: circular references between " + ", ".join(n for n, _ in pending))
        ordered += ready
        done |= {n for n, _ in ready}
        pending = [o for o in pending if o[0] not in done]
    return ordered


def _sql_digest(con: duckdb.DuckDBPyConnection) -> str:
    key = _sql_objects(con, compile_user=False)
    # DuckDB's version too: the stored metric tables are recomputed by the engine that reads them
    return hashlib.sha256(
        "\0".join([duckdb.__version__, *(f"{n}\0{s}" for n, s in key)]).encode()
    ).hexdigest()


def _stored_digest(con: duckdb.DuckDBPyConnection) -> str | None:
    row = one(con.execute("SELECT value FROM warehouse_meta WHERE key = 'sql_objects_sha256'"))
    return str(row[0]) if row else None


def _current(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether a warehouse opened read-only needs nothing of `prepare`: every migration applied,
    the SQL objects of this riskcov installed, the versions recorded as they are."""
    from riskcov.migrations import load_migrations, status

    if any(st.applied_at is None for st in status(con, load_migrations())):
        return False
    stored = dict(con.execute("SELECT key, value FROM warehouse_meta").fetchall())
    versions = {"duckdb_library_version": duckdb.__version__, "riskcov_version": __version__}
    if any(stored.get(k) != v for k, v in versions.items()):
        return False
    return _stored_digest(con) == _sql_digest(con)


def install_sql_objects(con: duckdb.DuckDBPyConnection, *, own: bool = True) -> None:
    """(Re)create the macros and views of `sql/` (and the generated CSF view) when changed;
    `own=False` inside the caller's transaction (after `csf add` / `csf remove`)."""
    digest = _sql_digest(con)
    if _stored_digest(con) == digest:
        return
    objects = _dependency_order(_sql_objects(con))
    from riskcov.scoring.csf import check_registry

    check_registry()
    with transaction(con, own=own):
        for name, sql in objects:
            try:
                con.execute(sql)
            except duckdb.Error as exc:
                raise RiskcovError(f"sql/{name}.sql: {str(exc).splitlines()[0]}") from exc
        _set_meta(con, "sql_objects_sha256", digest)
        # the SQL of the stored metrics changed (a CSF added or removed, another riskcov):
        # recompute them all, in the same transaction
        from riskcov.materialise import refresh

        refresh(con)


def _set_meta(con: duckdb.DuckDBPyConnection, key: str, value: str) -> None:
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


def prepare(con: duckdb.DuckDBPyConnection) -> None:
    """Migrate, record versions, install SQL objects."""
    migrate(con)
    current = {
        "duckdb_library_version": duckdb.__version__,
        "storage_version": storage_version(con),
        "riskcov_version": __version__,
    }
    stored = dict(con.execute("SELECT key, value FROM warehouse_meta").fetchall())
    for key, value in current.items():
        if stored.get(key) != value:
            _set_meta(con, key, value)
    install_sql_objects(con)


@contextmanager
def open_warehouse(
    path: str | Path | None = None, *, must_exist: bool = False, read_only: bool = False
) -> Iterator[duckdb.DuckDBPyConnection]:
    """Open (creating if needed, unless `must_exist`: commands that only read) and prepare the
    warehouse; close it afterwards. `read_only`: commands that only read open it read-only, so
    any number of them (and other read-only clients) share it; a warehouse that needs
    preparing (a migration, new SQL objects) is prepared once by a writer first.

    >>> import tempfile, pathlib
    >>> with open_warehouse(pathlib.Path(tempfile.mkdtemp()) / "w.duckdb") as con:
    ...     con.execute("SELECT count(*) FROM runs").fetchall()
    [(0,)]
    """
    resolved = resolve_path(path)
    if must_exist and not resolved.exists():
        raise RiskcovError(f"no warehouse at {resolved}: ingest a run first, or pass --warehouse")
    if read_only and resolved.exists():
        reader = connect(resolved, read_only=True)
        try:
            if _current(reader):
                yield reader
                return
        finally:
            reader.close()
    con = connect(resolved)
    try:
        prepare(con)
        yield con
    finally:
        con.close()
