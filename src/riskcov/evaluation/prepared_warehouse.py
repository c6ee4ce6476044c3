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
from riskcov import warehouse as connection
from riskcov.db import one, transaction
from riskcov.errors import RiskcovError
from riskcov.materialise import refresh
from riskcov.migrations import migrate
from riskcov.resources import resource_dir
from riskcov.scoring.confidences import confidences_view_sql
from riskcov.scoring.csf import check_registry
from riskcov.scoring.user_csf_store import listing, stored


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


def install_sql_objects(con: duckdb.DuckDBPyConnection, *, own: bool = True) -> None:
    """(Re)create the macros and views of `sql/` (and the generated CSF view) when changed;
    `own=False` inside the caller's transaction (after `csf add` / `csf remove`)."""
    key = _sql_objects(con, compile_user=False)
    # DuckDB's version too: the stored metric tables are recomputed by the engine that reads them
    digest = hashlib.sha256(
        "\0".join([duckdb.__version__, *(f"{n}\0{s}" for n, s in key)]).encode()
    ).hexdigest()
    row = one(con.execute("SELECT value FROM warehouse_meta WHERE key = 'sql_objects_sha256'"))
    if row and row[0] == digest:
        return
    objects = _dependency_order(_sql_objects(con))
    check_registry()
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
    migrate(con)
    current = {
        "duckdb_library_version": duckdb.__version__,
        "storage_version": connection.storage_version(con),
        "riskcov_version": __version__,
    }
    recorded = dict(con.execute("SELECT key, value FROM warehouse_meta").fetchall())
    for key, value in current.items():
        if recorded.get(key) != value:
            connection.set_meta(con, key, value)
    install_sql_objects(con)


@contextmanager
def open_warehouse(
    path: str | Path | None = None, *, must_exist: bool = False
) -> Iterator[duckdb.DuckDBPyConnection]:
    """Open (creating if needed, unless `must_exist`: commands that only read) and prepare the
    warehouse; close it afterwards.

    >>> import tempfile, pathlib
    >>> with open_warehouse(pathlib.Path(tempfile.mkdtemp()) / "w.duckdb") as con:
    ...     con.execute("SELECT count(*) FROM runs").fetchall()
    [(0,)]
    """
    resolved = connection.resolve_path(path)
    if must_exist and not resolved.exists():
        raise RiskcovError(f"no warehouse at {resolved}: ingest a run first, or pass --warehouse")
    con = connection.connect(resolved)  # through the module: tests patch it
    try:
        prepare(con)
        yield con
    finally:
        con.close()
