"""The user's named CSFs (`riskcov csf add/list/remove`): SQL expressions kept in `user_csfs`.

A stored expression is compiled again (riskcov.scoring.user_csf) wherever it is used, so only
the allow-listed, re-printed SQL ever reaches DuckDB; the view v_csf_confidences (and through it
v_scored and v_metrics) is regenerated in the same transaction as every change.

>>> from riskcov.scoring.user_csf import compile_expression
>>> as_csf("half", compile_expression("token_msp / 2", {"token_msp": "DOUBLE"})).expression
'(s.token_msp / CAST(2.0 AS DOUBLE))'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from riskcov.db import one, transaction
from riskcov.errors import InputError, RiskcovError, UsageError
from riskcov.scoring.csf import BASE, Csf

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


def _reinstall(con: duckdb.DuckDBPyConnection) -> None:
    from riskcov.warehouse import install_sql_objects

    install_sql_objects(con, own=False)


def add(con: duckdb.DuckDBPyConnection, name: str, text: str) -> Csf:
    """Check, try on every stored item, store and add to v_csf_confidences, in one transaction.

    The trial runs with DuckDB's external access off (one-way for this connection's database
    instance: call it as the last thing a process does with the warehouse).
    """
    from riskcov.scoring.user_csf import compile_expression, deny_external_access, name_ok, signal_columns

    name_ok(name, [*BASE, *CALIBRATED])
    compiled = compile_expression(text, signal_columns(con), label=f"csf {name}")
    csf = as_csf(name, compiled)
    deny_external_access(con)
    with transaction(con):
        if one(con.execute("SELECT 1 FROM user_csfs WHERE name = ?", [name])):
            raise UsageError(f"csf {name} already exists; remove it first (riskcov csf remove {name})")
        try:  # e.g. ln(0) is an error in DuckDB: better now than in every later v_metrics query
            con.execute(f"SELECT count({csf.expression}) FROM item_signals AS s").fetchall()
        except duckdb.Error as exc:
            first = str(exc).splitlines()[0]
            raise InputError(f"csf {name}: the expression fails on the stored items: {first}") from exc
        con.execute(
            "INSERT INTO user_csfs (name, expression, created_at) VALUES (?, ?, now()::TIMESTAMP)",
            [name, text],
        )
        _reinstall(con)
    return csf


def remove(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Delete a stored CSF and drop it from v_csf_confidences, in one transaction."""
    with transaction(con):
        if not one(con.execute("SELECT 1 FROM user_csfs WHERE name = ?", [name])):
            raise InputError(f"csf {name}: no such CSF (riskcov csf list shows them)")
        con.execute("DELETE FROM user_csfs WHERE name = ?", [name])
        _reinstall(con)
