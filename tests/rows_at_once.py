"""`insert`: a test's rows into a DuckDB table in one statement instead of executemany.

executemany runs its INSERT once per row (tens of ms for a property example's few dozen rows,
more than the queries under test); here each column travels as one list parameter and the
lists are unnested side by side, so the table receives the same values (Python floats as the
same doubles, ints and bools cast to the column types as executemany's parameters are) in the
same order (one ordered source; DuckDB keeps insertion order), which the tests of stored or
shuffled order rely on."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def insert(con: Any, table: str, rows: Sequence[Sequence[Any]]) -> None:
    """INSERT INTO `table` the `rows` (tuples in the table's column order), in their order."""
    if not rows:
        return
    columns = [list(c) for c in zip(*rows, strict=True)]
    unnested = ", ".join(f"unnest(${i})" for i in range(1, len(columns) + 1))
    con.execute(f"INSERT INTO {table} SELECT {unnested}", columns)
