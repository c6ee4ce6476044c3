"""In-memory per-sample data (the Python API's `data`): a pandas or polars DataFrame, a pyarrow
Table, or a mapping of column name -> numpy array or list, staged like a per-sample table
(docs/python.md).

DuckDB scans the object where it lies (`register`); pandas, polars and pyarrow are never
imported here, so they stay optional: a frame is known by the module its type comes from.
The column conventions are the per-sample table's, but `sample_id` may be left out: then
it is the 1-based row number. `stage_data` leaves what `stage_samples` leaves.

>>> import duckdb
>>> con = duckdb.connect()
>>> staged, sha = stage_data(con, {"confidence": [0.9, 0.2], "is_right": [True, False]},
...     SampleDefaults(), "data", renames={"is_right": "correct"})
>>> staged.loss_source, staged.columns
('correct', ('confidence', 'correct', 'sample_id'))
>>> con.sql("SELECT sample_id, loss FROM staged_samples ORDER BY row_number").fetchall()
[('1', 0.0), ('2', 1.0)]
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import duckdb

from riskcov.errors import InputError, UsageError
from riskcov.formats.per_sample.column_checks import INT, RAW, Source
from riskcov.formats.per_sample.raw_table import refuse_case_clash, typed_columns
from riskcov.formats.per_sample.read import SampleDefaults, StagedSamples, stage
from riskcov.formats.per_sample.store_rows import first_rowid

FRAME_MODULES = ("pandas", "polars", "pyarrow")
_VIEW = "_riskcov_user_data"


def frame_kind(data: object) -> str | None:
    """'pandas', 'polars' or 'pyarrow' for a frame or table of one of them, 'mapping' for a
    mapping of columns, else None (e.g. a path).

    >>> frame_kind({"confidence": [0.5]}), frame_kind("run.csv")
    ('mapping', None)
    """
    top = type(data).__module__.split(".")[0]
    if top in FRAME_MODULES:
        return top
    return "mapping" if isinstance(data, Mapping) else None


def not_data(data: object) -> UsageError:
    """The error for `data` that is neither in-memory data nor a path."""
    return UsageError(
        f"data: a {type(data).__name__} is not a DataFrame, a pyarrow Table, a mapping of columns or a path"
    )


def _columns(data: Mapping[str, Any]) -> dict[str, Any]:
    """A mapping's columns as numpy arrays of one length (DuckDB scans a dict of arrays)."""
    import numpy as np

    out: dict[str, Any] = {}
    for name, values in data.items():
        if not isinstance(name, str):
            raise InputError(f"data: column name {name!r} is not a string")
        array = np.asarray(values)
        if array.ndim != 1:
            raise InputError(f"data: column {name}: {array.ndim}-dimensional, give one value per sample")
        if array.dtype.kind in "OU":  # text: DuckDB reads str arrays as VARCHAR, None as NULL
            array = np.array([None if v is None else str(v) for v in values], dtype=object)
        out[name] = array
    lengths = {len(a) for a in out.values()}
    if len(lengths) > 1:
        sizes = ", ".join(f"{k} {len(a)}" for k, a in out.items())
        raise InputError(f"data: the columns differ in length ({sizes})")
    return out


def register(con: duckdb.DuckDBPyConnection, data: object) -> str:
    """Make `data` scannable as a view of `con`; return its name."""
    kind = frame_kind(data)
    if kind is None:
        raise not_data(data)
    names = data if kind == "mapping" else getattr(data, "column_names", None) or getattr(data, "columns", ())
    try:  # DuckDB would read the later of two names equal but for case as name_1
        refuse_case_clash([str(n) for n in names])  # type: ignore[union-attr]
    except InputError as exc:
        raise InputError(f"data: {exc}") from None
    try:
        con.register(_VIEW, _columns(data) if kind == "mapping" else data)  # type: ignore[arg-type]
    except (duckdb.Error, TypeError, ValueError) as exc:
        first = (str(exc).splitlines() or [""])[0]
        raise InputError(f"data: DuckDB cannot read this {kind} data: {first}") from None
    return _VIEW


def _digest(con: duckdb.DuckDBPyConnection, sources: list[Source]) -> str:
    """A digest of the column names and of RAW's rows in order: the run's `sha256`, so the same
    data ingested twice is recognised as a file is."""
    cols = ", ".join(s.sql for s in sources)
    row = con.execute(
        f"SELECT sha256(? || string_agg(CAST(ROW({cols}) AS VARCHAR), chr(10) ORDER BY rowid)) FROM {RAW}",
        ["\0".join(s.name for s in sources) + "\0"],
    ).fetchone()
    return str(row[0]) if row and row[0] is not None else ""


def stage_data(
    con: duckdb.DuckDBPyConnection,
    data: object,
    defaults: SampleDefaults,
    default_method: str,
    *,
    renames: dict[str, str] | None = None,
) -> tuple[StagedSamples, str]:
    """Validate in-memory data like a per-sample table and stage it (see `stage_samples`);
    messages name it `data`. `renames`: columns read under another name (the API's roles).
    Returns the staged rows and the data's digest (its `sha256`)."""
    relation = register(con, data)
    try:
        return _stage_relation(con, relation, defaults, default_method, renames or {})
    finally:
        con.unregister(relation)


def _stage_relation(
    con: duckdb.DuckDBPyConnection,
    relation: str,
    defaults: SampleDefaults,
    method: str,
    renames: dict[str, str],
) -> tuple[StagedSamples, str]:
    label = Path("data")
    names = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()]
    for old in renames:
        if old not in names:
            raise UsageError(f"data: no column {old} (columns: {', '.join(names)})")

    digest = ""

    def read() -> tuple[list[Source], str]:
        nonlocal digest
        sources, select = typed_columns(con, relation, renames)
        con.execute(f"CREATE TEMP TABLE {RAW} AS SELECT {', '.join(select)} FROM {relation}")
        digest = _digest(con, sources)
        row_number = f"rowid - {first_rowid(con, RAW)} + 1"
        if all(s.name != "sample_id" for s in sources):  # the row number, as a column of RAW
            column = f"c{len(sources)}"
            con.execute(f"ALTER TABLE {RAW} ADD COLUMN {column} BIGINT")
            con.execute(f"UPDATE {RAW} SET {column} = {row_number}")
            sources.append(Source("sample_id", column, INT))
        return sources, row_number

    return stage(con, label, read, defaults, method), digest
