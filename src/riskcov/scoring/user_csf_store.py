"""The user's named CSFs (`riskcov csf list`): SQL expressions kept in `user_csfs`.

A stored expression is compiled again (riskcov.scoring.user_csf) wherever it is used, so only
the allow-listed, re-printed SQL ever reaches DuckDB. Adding and removing one (which regenerates
v_csf_confidences in the same transaction) is riskcov.evaluation.user_csfs.

>>> from riskcov.scoring.user_csf import compile_expression
>>> as_csf("half", compile_expression("token_msp / 2", {"token_msp": "DOUBLE"})).expression
'(s.token_msp / CAST(2.0 AS DOUBLE))'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from riskcov.errors import RiskcovError, UsageError
from riskcov.scoring.csf import Csf

if TYPE_CHECKING:  # user_csf imports sqlglot, slow to import: only where an expression is compiled
    from riskcov.scoring.user_csf import CompiledExpression

# selectors of calibrated CSFs (docs/calibration.md): not available as names of the user's own
CALIBRATED = ("calibrated", "verbalized_calibrated")


@dataclass(frozen=True)
class StoredCsf:
    """One row of `user_csfs`."""

    name: str
    expression: str
    created_at: str


def as_csf(name: str, compiled: CompiledExpression) -> Csf:
    """A compiled user expression as a registry CSF (its problems are its own SQL)."""
    return Csf(name, compiled.sql, problem=compiled.problem_sql())


def _has_table(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether migration 0005 made `user_csfs`: a lookup of that one name (a missing table
    leaves an open transaction usable), not duckdb_tables(), whose first call on a
    connection is slow enough to show in every warehouse open."""
    try:
        con.table("user_csfs")
    except duckdb.CatalogException:
        return False
    return True


def listing(con: duckdb.DuckDBPyConnection) -> list[StoredCsf]:
    """Every stored CSF, by name."""
    if not _has_table(con):
        return []
    rows = con.execute(
        "SELECT name, expression, strftime(created_at, '%Y-%m-%d %H:%M:%S') FROM user_csfs ORDER BY name"
    ).fetchall()
    return [StoredCsf(str(n), str(e), str(t)) for n, e, t in rows]


def stored(con: duckdb.DuckDBPyConnection) -> dict[str, Csf]:
    """Every stored CSF compiled against the warehouse's signal columns, by name."""
    rows = listing(con)
    if not rows:
        return {}
    from riskcov.scoring.user_csf import compile_expression, signal_columns

    columns = signal_columns(con)
    out: dict[str, Csf] = {}
    for row in rows:
        try:
            out[row.name] = as_csf(
                row.name, compile_expression(row.expression, columns, label=f"csf {row.name}")
            )
        except UsageError as exc:  # columns are only ever added, so this means a hand-edited table
            raise RiskcovError(f"stored {exc}; remove it with riskcov csf remove {row.name}") from exc
    return out
