"""`riskcov history`: one metric of one CSF across every ingested run, oldest first, from the
warehouse's point metrics (v_metrics: the same SQL as `evaluate --bootstrap-resamples 0`)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import duckdb

from riskcov.errors import UsageError

METRICS = (
    "cmax",
    "aurc_full",
    "augrc_full",
    "aurc_optimal",
    "augrc_optimal",
    "eaurc",
    "eaugrc",
    "aurc_at_c",
    "augrc_at_c",
    "aurc_optimal_population",
    "eaurc_population",
    "prob_ece",
    "prob_nll",
    "prob_brier",
)
COLUMNS = ("run_id", "run_timestamp", "experiment_id", "mode", "method", "seed", "split", "domain", "loss")
FORMATS = ("table", "csv", "json")


def check(metric: str, fmt: str) -> None:
    """Usage errors before the warehouse is opened."""
    if metric not in METRICS:
        raise UsageError(f"--metric {metric}: choose one of {', '.join(METRICS)}")
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt}: choose one of {', '.join(FORMATS)}")


def rows(
    con: duckdb.DuckDBPyConnection, metric: str, csf: str, filters: dict[str, str | None]
) -> list[dict[str, Any]]:
    """The metric per experiment of every run where `csf` applies, optionally narrowed by
    mode, loss, method, split or domain; ordered by run timestamp (runs without one last), then
    run_id and experiment_id."""
    check(metric, "table")
    where = ["csf = ?"]
    params: list[Any] = [csf]
    for column, value in filters.items():
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    cur = con.execute(
        f"SELECT {', '.join(COLUMNS)}, {metric} AS value FROM v_metrics WHERE {' AND '.join(where)} "
        "ORDER BY run_timestamp NULLS LAST, run_id, experiment_id, loss",
        params,
    )
    names = [d[0] for d in cur.description]
    return [
        {k: (str(v) if k == "run_timestamp" and v is not None else v) for k, v in zip(names, r, strict=True)}
        for r in cur.fetchall()
    ]


def csfs(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The CSFs v_metrics has rows for, in name order (what --csf can name)."""
    return [str(r[0]) for r in con.execute("SELECT DISTINCT csf FROM v_metrics ORDER BY csf").fetchall()]


def render(found: list[dict[str, Any]], fmt: str, metric: str) -> str:
    """CSV or JSON text (the table format is drawn by the CLI)."""
    if fmt == "json":
        return json.dumps(found, indent=2, allow_nan=False)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*COLUMNS, metric])
    for r in found:
        writer.writerow(
            ["" if r[c] is None else r[c] for c in COLUMNS] + ["" if r["value"] is None else repr(r["value"])]
        )
    return out.getvalue().rstrip("\n")
