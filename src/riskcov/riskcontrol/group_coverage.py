"""`risk-control --group COLUMN` (docs/risk-control.md): at each rule's threshold (the certified
one among them), each group's coverage on the test split and the gap between the groups, by
the SQL macro rc_group_coverage over the test experiment's samples grouped by a per-sample
column (`label`, `prediction` or an attribute: evaluation.groups.group_values)."""

from __future__ import annotations

from typing import Any

import duckdb

from riskcov.evaluation.groups import group_values
from riskcov.riskcontrol.seed_summary import mean_std

COLUMNS = ("method", "seed", "rule", "alpha", "group_value", "coverage")


def add(con: duckdb.DuckDBPyConnection, rows: list[dict[str, Any]], csf: str, column: str) -> None:
    """Give every row `group_coverage` ({group: its accepted share of the test samples at the
    row's threshold, abstentions in the denominator}) and `coverage_gap` (largest minus smallest)."""
    by_test: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        by_test.setdefault(int(r["test_experiment_id"]), []).append(r)
    for experiment_id, mine in sorted(by_test.items()):
        label = f"test experiment of method {mine[0]['method']} seed {mine[0]['seed']}"
        group_values(con, column, experiment_id, label)
        con.execute(
            "CREATE OR REPLACE TEMP TABLE rc_grouped AS SELECT 0 AS series, v.grp, sc.confidence "
            "FROM eval_group_values AS v JOIN sample_scores AS sc ON sc.experiment_id = ? "
            "AND sc.sample_index = v.sample_index AND sc.csf = ?",
            [experiment_id, csf],
        )
        for rule in sorted({r["rule"] for r in mine}):
            of_rule = {r["alpha"]: r for r in mine if r["rule"] == rule}
            con.execute(
                "CREATE OR REPLACE TEMP TABLE rc_group_thresholds "
                "(series INTEGER, alpha DOUBLE, threshold DOUBLE)"
            )
            con.executemany(
                "INSERT INTO rc_group_thresholds VALUES (0, ?, ?)",
                [[a, r["threshold"]] for a, r in of_rule.items()],
            )
            for r in of_rule.values():
                r["group_coverage"] = {}
            for alpha, grp, coverage in con.execute(
                "SELECT alpha, grp, coverage FROM rc_group_coverage('rc_grouped', 'rc_group_thresholds') "
                "ORDER BY alpha, grp"
            ).fetchall():
                of_rule[float(alpha)]["group_coverage"][str(grp)] = float(coverage)
        for r in mine:
            cov = r["group_coverage"]
            r["coverage_gap"] = max(cov.values()) - min(cov.values()) if cov else None
    con.execute("DROP TABLE IF EXISTS rc_grouped")
    con.execute("DROP TABLE IF EXISTS rc_group_thresholds")
    con.execute("DROP TABLE IF EXISTS eval_group_values")


def summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (method, alpha, rule) over the seeds: the mean ± std (ddof 0) and the largest
    coverage gap between the groups."""
    groups: dict[tuple[str, float, str], list[float]] = {}
    for r in rows:
        if r.get("coverage_gap") is not None:
            groups.setdefault((r["method"], r["alpha"], r["rule"]), []).append(r["coverage_gap"])
    out = []
    for (method, alpha, rule), gaps in groups.items():
        mean, std = mean_std(gaps)
        out.append(
            {
                "method": method,
                "alpha": alpha,
                "rule": rule,
                "mean_gap": mean,
                "std_gap": std,
                "max_gap": max(gaps),
            }
        )
    return out


def stored_rows(command_id: int, column: str, rows: list[dict[str, Any]]) -> list[list[Any]]:
    """risk_control_group_coverage's rows: one per (row, group)."""
    return [
        [command_id, r["method"], r["seed"], r["rule"], r["alpha"], column, g, cov]
        for r in rows
        for g, cov in r.get("group_coverage", {}).items()
    ]
