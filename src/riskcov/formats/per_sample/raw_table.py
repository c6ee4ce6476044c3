"""Reading a per-sample file into RAW (docs/formats.md): DuckDB's own readers, a CSV's cells
all as text (so every type decision and message is ours, not the sniffer's), a Parquet file
read in place, a JSON lines file typed by the whole file; columns renamed c0, c1, ... and kept
in file order, with the SQL of each row's 1-based row number. `read.stage_samples` checks and
stages what this reads.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import duckdb

from riskcov.errors import InputError
from riskcov.formats.per_sample.column_checks import BOOL, FLOAT, INT, RAW, TEXT, Source, literal
from riskcov.formats.per_sample.header import too_wide
from riskcov.formats.per_sample.store_rows import first_rowid

FORMATS = {".csv": "CSV", ".parquet": "Parquet", ".jsonl": "JSON lines", ".ndjson": "JSON lines"}
_INTS = {
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
}
_NESTED = re.compile(r"\[\]$|^(STRUCT|MAP|UNION|LIST|ARRAY)\b|\[\d+\]$")
# DuckDB's readers take names equal but for case for one name and rename the later one name_1
_RENAMED = re.compile(r"(.+)_\d+\Z")


def reason(exc: duckdb.Error) -> str:
    """DuckDB's message as one line: its first line, and for a CSV error the reason given."""
    lines = [line.strip() for line in str(exc).splitlines()] or [""]
    first = re.sub(r"^[A-Za-z ]*Error: ", "", lines[0])
    if first.startswith("CSV Error on Line"):
        # the reason is the last line before the advice; the offending line itself may span lines
        end = next((i for i, line in enumerate(lines) if line.startswith("Possible")), len(lines))
        reason = next((x for x in reversed(lines[1:end]) if x and not x.startswith("Original Line")), "")
        first = f"{first}: {reason}" if reason else first
    return first


def _csv_header(path: Path, reader: str) -> list[str]:
    # DuckDB renames repeated and empty header names (a, a_1, column2); read them as written
    try:
        with open(reader, encoding="utf-8-sig", newline="") as f:
            return next(csv.reader(f), [])
    except UnicodeDecodeError:
        raise InputError(f"{path}: unreadable CSV: the header is not UTF-8 text") from None
    except csv.Error as exc:
        raise InputError(f"{path}: unreadable CSV: {exc}") from None


def _refuse_wide(columns: int) -> None:
    wide = too_wide(columns)
    if wide is not None:
        raise InputError(wide)


def _kind(duck_type: str) -> str:
    if duck_type in _INTS:
        return INT
    if duck_type in ("FLOAT", "DOUBLE") or duck_type.startswith("DECIMAL"):
        return FLOAT
    return BOOL if duck_type == "BOOLEAN" else TEXT


def read_raw(con: duckdb.DuckDBPyConnection, path: Path, reader: str) -> tuple[list[Source], str]:
    """Create RAW from the file (columns c0, c1, ...; row order kept): a table, or for Parquet
    a view (the file has row numbers of its own). Return its columns and the SQL of its 1-based
    row number. `reader` is the path DuckDB opens (see `stage_samples`)."""
    p, fmt = literal(reader), FORMATS[path.suffix.lower()]
    if fmt == "CSV":
        names = _csv_header(path, reader)
        _refuse_wide(len(names))  # before DuckDB reads it
        cols = ", ".join(f"'c{i}': 'VARCHAR'" for i in range(len(names)))
        con.execute(f"""CREATE TEMP TABLE {RAW} AS SELECT * FROM read_csv({p}, header = true,
            auto_detect = false, columns = {{{cols}}}, delim = ',', quote = '"', escape = '"',
            comment = '', skip = 0, strict_mode = true, null_padding = false, encoding = 'utf-8')""")
        return [Source(name, f"c{i}", TEXT) for i, name in enumerate(names)], row_number(con)
    if fmt == "Parquet":
        reader = f"read_parquet({p})"
    else:
        # the whole file decides the types, so a late string makes a JSON column, not a failed cast
        json_args = f"{p}, format = 'newline_delimited', records = true"
        # map_inference_threshold: past 200 keys DuckDB would type each line as one MAP
        sniff = f"read_json({json_args}, sample_size = -1, map_inference_threshold = -1)"
        found = con.execute(f"DESCRIBE SELECT * FROM {sniff}").fetchall()
        _refuse_wide(len(found))
        spec = ", ".join(
            f"{literal(n)}: {literal(t if _kind(t) != TEXT or t == 'VARCHAR' else 'JSON')}"
            for n, t, *_ in found
        )
        reader = f"read_json({json_args}, auto_detect = false, columns = {{{spec}}})"
    sources, select = typed_columns(con, reader)
    _refuse_wide(len(sources))
    if _maybe_renamed([s.name for s in sources]):  # the file's own names decide
        if fmt == "Parquet":
            own = _top_level(con.execute(f"SELECT name, num_children FROM parquet_schema({p})").fetchall())
        else:
            objects = f"read_json_objects({p}, format = 'newline_delimited')"
            own = [
                str(r[0])
                for r in con.execute(
                    f"SELECT DISTINCT unnest(json_keys(json)) FROM {objects} ORDER BY 1"
                ).fetchall()
            ]
        refuse_case_clash(own)
    if fmt == "Parquet":
        select.append("file_row_number + 1 AS row_number")
        reader = f"read_parquet({p}, file_row_number = true)"
        con.execute(f"CREATE TEMP VIEW {RAW} AS SELECT {', '.join(select)} FROM {reader}")
        return sources, "row_number"
    con.execute(f"CREATE TEMP TABLE {RAW} AS SELECT {', '.join(select)} FROM {reader}")
    return sources, row_number(con)


def refuse_case_clash(names: list[str]) -> None:
    """InputError for two column names equal, or equal but for case, which DuckDB reads as one
    name (it renames the later to name_1: a Parquet file or a frame with `confidence` twice
    was evaluated as CSFs confidence and 1).

    >>> refuse_case_clash(["site", "Site_1", "score"])
    >>> refuse_case_clash(["Site", "score", "site"])
    Traceback (most recent call last):
    riskcov.errors.InputError: columns Site and site differ only in case, which DuckDB reads as one ...
    >>> refuse_case_clash(["confidence", "correct", "confidence"])
    Traceback (most recent call last):
    riskcov.errors.InputError: column confidence appears twice
    """
    first: dict[str, str] = {}
    given: set[str] = set()
    for name in names:
        if name in given:
            raise InputError(f"column {name} appears twice")
        given.add(name)
        seen = first.setdefault(name.lower(), name)
        if seen != name:
            raise InputError(
                f"columns {seen} and {name} differ only in case, which DuckDB reads as one name: rename one"
            )


def _top_level(schema: list[tuple[Any, ...]]) -> list[str]:
    """The top-level column names of a Parquet schema (parquet_schema's rows in file order: the
    root, then each field followed by its children).

    >>> _top_level([("schema", 3), ("a", None), ("s", 2), ("A", None), ("x", None), ("b", None)])
    ['a', 's', 'b']
    """
    names, i = [], 1
    for _ in range((schema[0][1] or 0) if schema else 0):
        names.append(str(schema[i][0]))
        pending, i = schema[i][1] or 0, i + 1
        while pending:  # skip the field's subtree
            pending, i = pending - 1 + (schema[i][1] or 0), i + 1
    return names


def _maybe_renamed(names: list[str]) -> bool:
    """Whether a name may be DuckDB's rename of one equal but for case to another (name_1)."""
    lower = {n.lower() for n in names}
    return any((m := _RENAMED.match(n)) is not None and m.group(1).lower() in lower for n in names)


def typed_columns(
    con: duckdb.DuckDBPyConnection, reader: str, renames: dict[str, str] | None = None
) -> tuple[list[Source], list[str]]:
    """The columns of `reader` (SQL of a table function or a relation name) as Sources c0, c1,
    ... of RAW and the SELECT list making them: typed columns kept, anything else as text.
    `renames`: a column read under another name (the Python API's `correct="is_right"`)."""
    described = con.execute(f"DESCRIBE SELECT * FROM {reader}").fetchall()
    renames = renames or {}
    sources, select = [], []
    for i, (name, duck_type, *_) in enumerate(described):
        if _NESTED.search(duck_type):
            raise InputError(
                f"column {name} is a nested {duck_type}; per-sample columns hold one value per row"
            )
        ident = '"' + name.replace('"', '""') + '"'
        kind, nested = _kind(duck_type), ""
        if duck_type == "JSON":  # a JSON lines column of mixed or nested values
            select.append(f"coalesce(json_type({ident}) IN ('OBJECT', 'ARRAY'), false) AS n{i}")
            nested = f"n{i}"
        if kind == TEXT and duck_type != "VARCHAR":
            ident = f"({ident} ->> '$')" if duck_type == "JSON" else f"CAST({ident} AS VARCHAR)"
        select.append(f"{ident} AS c{i}")
        sources.append(Source(renames.get(name, name), f"c{i}", kind, nested))
    return sources, select


def row_number(con: duckdb.DuckDBPyConnection) -> str:
    """SQL of RAW's 1-based row number, RAW being a table (its rows in file order)."""
    return f"rowid - {first_rowid(con, RAW)} + 1"
