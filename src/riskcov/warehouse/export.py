"""Every warehouse table (the metric tables `metrics` and `rc_points` included) as Parquet or CSV
files, in key order."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import duckdb

from riskcov.errors import ResourceError, RiskcovError, UsageError
from riskcov.warehouse.duckdb_helpers import one
from riskcov.warehouse.files import is_full, make_folder, stale_temps

FORMATS = {"parquet": "FORMAT parquet", "csv": "FORMAT csv, HEADER true"}
# bookkeeping of the warehouse itself, not data
INTERNAL_TABLES = ("schema_migrations", "warehouse_meta")


@dataclass(frozen=True)
class Exported:
    """One written file and its row count."""

    table: str
    rows: int
    path: Path


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# tables whose key is unique by construction but not declared (migration 0008): sorted by it, the
# order ORDER BY ALL gives, without comparing the other twelve columns
UNIQUE_COLUMNS = {"rc_points": ["experiment_id", "csf", "loss", "replicate", "plateau"]}


def exportable(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Each exportable table's name and its query, ordered by the table's primary key (or the
    columns of UNIQUE_COLUMNS)."""
    keys = UNIQUE_COLUMNS | {
        str(t): [str(c) for c in cols]
        for t, cols in con.execute(
            "SELECT table_name, constraint_column_names FROM duckdb_constraints() "
            "WHERE database_name = current_database() AND schema_name = 'main' "
            "AND constraint_type = 'PRIMARY KEY'"
        ).fetchall()
    }
    tables = [
        str(r[0])
        for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
            "AND schema_name = 'main' ORDER BY table_name"
        ).fetchall()
        if r[0] not in INTERNAL_TABLES
    ]
    queries: dict[str, str] = {}
    for table in tables:
        # a table without a key: equal rows are identical, so sorting by every column is total
        order = ", ".join(_quote(c) for c in keys[table]) if table in keys else "ALL"
        queries[table] = f"SELECT * FROM {_quote(table)} ORDER BY {order}"
    return dict(sorted(queries.items()))


def check_format(fmt: str) -> None:
    """Refuse a format other than parquet or csv (before the warehouse is opened).

    >>> check_format("xlsx")
    Traceback (most recent call last):
    riskcov.errors.UsageError: --format xlsx: give parquet or csv
    """
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt}: give parquet or csv")


def export_tables(con: duckdb.DuckDBPyConnection, fmt: str, out: Path, tables: list[str]) -> list[Exported]:
    """Write `tables` (all when empty) to out/<table>.<fmt>, each through a temporary file."""
    check_format(fmt)
    queries = exportable(con)
    unknown = [t for t in tables if t not in queries]
    if unknown:
        raise UsageError(f"unknown table {unknown[0]}; valid tables: {', '.join(queries)}")
    chosen = list(dict.fromkeys(tables)) or list(queries)
    make_folder(out, f"--out {out}: cannot make the folder")
    written: list[Exported] = []
    for table in chosen:
        path = out / f"{table}.{fmt}"
        for stale in stale_temps(out, path.name):  # of an export that was killed
            stale.unlink(missing_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        literal = "'" + str(tmp).replace("'", "''") + "'"
        try:
            row = one(con.execute(f"COPY ({queries[table]}) TO {literal} ({FORMATS[fmt]})"))
            os.replace(tmp, path)
        except (duckdb.Error, OSError) as exc:
            first = (str(exc).splitlines() or [""])[0]
            if is_full(exc):
                done = ", ".join(e.table for e in written) or "none"
                raise ResourceError(f"export {path}: disk full ({first}); tables written: {done}") from exc
            raise RiskcovError(f"export {path}: {first}") from exc
        finally:
            tmp.unlink(missing_ok=True)  # gone after the rename; a leftover only after an error
        written.append(Exported(table, int(row[0]) if row else 0, path))
    return written
