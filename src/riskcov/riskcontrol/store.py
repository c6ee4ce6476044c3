"""The `command_runs` ledger of the risk-control commands (migrations/0004_risk_control.sql)."""

from __future__ import annotations

import json
from typing import Any

import duckdb

from riskcov import __version__
from riskcov.warehouse.duckdb_helpers import one


def record_command(
    con: duckdb.DuckDBPyConnection, command: str, inputs: list[str], options: dict[str, Any]
) -> int:
    """A new command_runs row (inside the caller's transaction); its command_id."""
    row = one(con.execute("SELECT nextval('command_run_id_seq')"))
    assert row is not None
    command_id = int(row[0])
    con.execute(
        "INSERT INTO command_runs (command_id, command, created_at, inputs, options, riskcov_version) "
        "VALUES (?, ?, now()::TIMESTAMP, ?, ?, ?)",
        [
            command_id,
            command,
            json.dumps(inputs),
            json.dumps(options, sort_keys=True, allow_nan=False),
            __version__,
        ],
    )
    return command_id


RESULT_COLUMNS = (
    "method",
    "seed",
    "rule",
    "alpha",
    "csf",
    "cal_experiment_id",
    "test_experiment_id",
    "threshold",
    "cal_coverage",
    "cal_risk",
    "coverage",
    "risk",
    "generalized_risk",
    "accepted",
    "violated",
    "violated_margin",
)

P_VALUE_COLUMNS = (
    "method",
    "seed",
    "alpha",
    "candidate",
    "threshold",
    "cal_coverage",
    "accepted",
    "p_value",
    "rejected",
)


def store_results(
    con: duckdb.DuckDBPyConnection, command_id: int, procedure: str, doc: dict[str, Any]
) -> None:
    """A risk-control document's rows (risk_control_results) and its certified rule's tested
    candidates (risk_control_p_values: per candidate its combined row, then one per risk)."""
    con.executemany(
        f"INSERT INTO risk_control_results (command_id, {', '.join(RESULT_COLUMNS)}) "
        f"VALUES (?, {', '.join('?' for _ in RESULT_COLUMNS)})",
        [[command_id, *(r[c] for c in RESULT_COLUMNS)] for r in doc["rows"]],
    )
    if doc["p_values"]:
        columns = ["command_id", "procedure", *P_VALUE_COLUMNS, "risk", "level", "n_tested"]
        con.executemany(
            f"INSERT INTO risk_control_p_values ({', '.join(columns)}) "
            f"VALUES ({', '.join('?' for _ in columns)})",
            _p_value_rows(command_id, procedure, doc["p_values"]),
        )


def _p_value_rows(command_id: int, procedure: str, tested: list[dict[str, Any]]) -> list[list[Any]]:
    """risk_control_p_values' rows: per candidate its combined row, then one per risk."""
    out = []
    for r in tested:
        head = [command_id, procedure, *(r[c] for c in P_VALUE_COLUMNS if c not in ("p_value", "rejected"))]
        out.append([*head, r["p_value"], r["rejected"], "combined", None, None])
        for risk in r["risks"]:
            out.append([*head, risk["p_value"], r["rejected"], risk["risk"], risk["level"], risk["n"]])
    return out
