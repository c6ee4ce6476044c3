"""`riskcov csf add|remove`: a user's CSF checked, stored in `user_csfs` and added to (or dropped
from) v_csf_confidences, and through it v_scored and v_metrics, in one transaction."""

from __future__ import annotations

import duckdb

from riskcov.errors import InputError, UsageError
from riskcov.evaluation.prepared_warehouse import install_sql_objects
from riskcov.scoring.csf import BASE, Csf
from riskcov.scoring.user_csf_store import CALIBRATED, as_csf
from riskcov.warehouse.duckdb_helpers import one, transaction


def add(con: duckdb.DuckDBPyConnection, name: str, text: str) -> Csf:
    """Check, try on every stored item, store and add to v_csf_confidences, in one transaction.

    The trial runs with DuckDB's external access off (one-way for this connection's database
    instance: call it as the last thing a process does with the warehouse).
    """
    from riskcov.scoring.sample_expressions import expression_csf, rows_sql
    from riskcov.scoring.user_csf import (
        compile_expression,
        compile_for_samples,
        deny_external_access,
        name_ok,
        signal_columns,
    )

    name_ok(name, [*BASE, *CALIBRATED])
    try:
        compiled = compile_expression(text, signal_columns(con), label=f"csf {name}")
        csf, trial, units = as_csf(name, compiled), "item_signals AS s", "items"
    except UsageError as not_signals:
        try:  # over per-sample score columns by CSF name and prob (docs/python.md)
            compiled = compile_for_samples(text, label=f"csf {name}")
        except UsageError as not_scores:
            raise _neither(f"csf {name}: ", not_signals, not_scores) from None
        csf = expression_csf(name, compiled.sql, compiled.columns)
        trial, units = f"{rows_sql(compiled.columns)} AS s", "samples"
    deny_external_access(con)
    with transaction(con):
        if one(con.execute("SELECT 1 FROM user_csfs WHERE name = ?", [name])):
            raise UsageError(f"csf {name} already exists; remove it first (riskcov csf remove {name})")
        column = one(  # a run's score column is evaluated under its name, not the stored CSF
            con.execute(
                "SELECT min(e.run_id) FROM experiments AS e WHERE e.experiment_id IN "
                "(SELECT experiment_id FROM sample_scores WHERE csf = ?)",
                [name],
            )
        )
        if column and column[0] is not None:
            raise UsageError(
                f"csf name {name}: {name} is a score column of per-sample run {column[0]}, "
                "which would be evaluated under that name instead; choose another name"
            )
        try:  # e.g. ln(0) is an error in DuckDB: better now than in every later v_metrics query
            con.execute(f"SELECT count({csf.expression}) FROM {trial}").fetchall()
        except duckdb.Error as exc:
            first = str(exc).splitlines()[0]
            raise InputError(f"csf {name}: the expression fails on the stored {units}: {first}") from exc
        con.execute(
            "INSERT INTO user_csfs (name, expression, created_at) VALUES (?, ?, now()::TIMESTAMP)",
            [name, text],
        )
        install_sql_objects(con, own=False)
    return csf


def remove(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Delete a stored CSF and drop it from v_csf_confidences, in one transaction."""
    with transaction(con):
        if not one(con.execute("SELECT 1 FROM user_csfs WHERE name = ?", [name])):
            raise InputError(f"csf {name}: no such CSF (riskcov csf list shows them)")
        con.execute("DELETE FROM user_csfs WHERE name = ?", [name])
        install_sql_objects(con, own=False)


def _neither(prefix: str, not_signals: UsageError, not_scores: UsageError) -> UsageError:
    """Why an expression is a CSF of neither kind of run: the PHQ-8 reason, and the per-sample
    one where it differs (a key of the sample's row is no score column, which the list of
    signals alone would not say).

    >>> _neither("csf x: ", UsageError("csf x: a"), UsageError("csf x: b"))
    UsageError('csf x: a; as a CSF of per-sample runs: b')
    >>> _neither("csf x: ", UsageError("csf x: a"), UsageError("csf x: a"))
    UsageError('csf x: a')
    """
    if str(not_scores) == str(not_signals):
        return not_signals
    return UsageError(f"{not_signals}; as a CSF of per-sample runs: {str(not_scores).removeprefix(prefix)}")
