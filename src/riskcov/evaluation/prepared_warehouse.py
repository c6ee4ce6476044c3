"""A warehouse opened for work: the file connected, migrated, its versions recorded and every
stage's SQL objects installed (the macros and views of `sql/`, the CSF view generated from the
scoring registry and the user's stored CSFs, the metric tables recomputed when these change).

The storage layer knows the file; this module knows what the pipeline puts in it, so it sits
above scoring and metrics (docs/architecture.md)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from riskcov import __version__
from riskcov.errors import RiskcovError
from riskcov.resources import resource_dir
from riskcov.scoring.confidences import confidences_view_sql
from riskcov.scoring.csf import check_registry
from riskcov.scoring.user_csf_store import listing, stored
from riskcov.warehouse import connection
from riskcov.warehouse.duckdb_helpers import transaction
from riskcov.warehouse.metric_tables import refresh
from riskcov.warehouse.migrations import load_migrations, migrate, status


def _sql_objects(con: duckdb.DuckDBPyConnection, *, compile_user: bool = True) -> list[tuple[str, str]]:
    """sql/*.sql and the generated CSF view (the registry's CSFs and the user's stored ones);
    `compile_user=False` puts the stored expressions' text in place of their SQL, which is all
    the digest needs (compiling imports sqlglot, slow to import on every open)."""
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
    # a name is one word (file stems, v_csf_confidences), so the words of its SQL say whether it
    # is named there: one scan per object instead of a search per pair of objects
    assert all(re.fullmatch(r"\w+", n) for n in names), names
    needs = {n: (names & set(re.findall(r"\w+", code[n]))) - {n} for n, _ in objects}
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
    text = "\0".join([duckdb.__version__, *(f"{n}\0{s}" for n, s in key)])
    return hashlib.sha256(text.encode()).hexdigest()


def _current(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether a warehouse opened read-only needs nothing of `prepare`: every migration applied,
    the SQL objects of this riskcov installed, the versions recorded as they are."""
    if any(st.applied_at is None for st in status(con, load_migrations())):
        return False
    recorded = connection.meta(con) or {}
    versions = {"duckdb_library_version": duckdb.__version__, "riskcov_version": __version__}
    if any(recorded.get(k) != v for k, v in versions.items()):
        return False
    return recorded.get("sql_objects_sha256") == _sql_digest(con)


def install_sql_objects(
    con: duckdb.DuckDBPyConnection, *, own: bool = True, meta: dict[str, str] | None = None
) -> None:
    """(Re)create the macros and views of `sql/` (and the generated CSF view) when changed;
    `own=False` inside the caller's transaction (after `csf add` / `csf remove`); `meta`:
    warehouse_meta's entries as they are now, if the caller read them."""
    digest = _sql_digest(con)
    entries = (connection.meta(con) or {}) if meta is None else meta
    if entries.get("sql_objects_sha256") == digest:
        return
    objects = _dependency_order(_sql_objects(con))
    check_registry(con)
    with transaction(con, own=own):
        for name, sql in objects:
            try:
                con.execute(sql)
            except duckdb.Error as exc:
                raise RiskcovError(f"sql/{name}.sql: {str(exc).splitlines()[0]}") from exc
        connection.set_meta(con, "sql_objects_sha256", digest)
        # the SQL of the stored metrics changed (a CSF added or removed, another riskcov):
        # recompute them all, in the same transaction
        refresh(con)


def prepare(con: duckdb.DuckDBPyConnection) -> None:
    """Migrate, record versions, install SQL objects."""
    # warehouse_meta read once for the three: no other process writes the file while this
    # connection holds it (DuckDB's lock), and here only a migration could change it before the
    # versions are recorded, so it is read again after one (or on a new file, where it was not
    # there yet); the versions recorded below are not the keys install_sql_objects reads
    recorded = connection.meta(con)
    if migrate(con, meta=recorded) or recorded is None:
        recorded = connection.meta(con) or {}
    current = {
        "duckdb_library_version": duckdb.__version__,
        "storage_version": connection.storage_version(con),
        "riskcov_version": __version__,
    }
    for key, value in current.items():
        if recorded.get(key) != value:
            connection.set_meta(con, key, value)
    install_sql_objects(con, meta=recorded)


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
    resolved = connection.resolve_path(path)
    if must_exist and not resolved.exists():
        raise RiskcovError(f"no warehouse at {resolved}: ingest a run first, or pass --warehouse")
    if read_only and resolved.exists():
        reader = connection.connect(resolved, read_only=True)
        try:
            if _current(reader):
                yield reader
                return
        finally:
            reader.close()
    con = connection.connect(resolved)  # through the module: tests patch it
    try:
        prepare(con)
        yield con
    finally:
        con.close()
