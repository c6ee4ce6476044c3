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
