"""`evaluate --group COLUMN` (docs/metrics-extended.md): the metrics of each group of samples
(the values of a per-sample column: `label`, `prediction` or an attribute of the file such as
`site`, docs/formats.md) with bootstrap CIs over the evaluation's own
cluster draws, and the coverage gap between the groups at each CSF's Coverage@Risk(alpha)
threshold. Runs after the evaluation's own metrics: it rebuilds eval_scored from the groups'
units and computes them with the same SQL macros (rc_* through the engine; rc_group_coverage)."""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np

from riskcov.bootstrap import interval
from riskcov.errors import InputError, UsageError
from riskcov.evaluation import replicates
from riskcov.evaluation.options import GROUP_COLUMNS
from riskcov.ingest.inputs import Input
from riskcov.metrics import engine
from riskcov.report.keys import grid_key
from riskcov.scoring.scored import Series
from riskcov.warehouse.duckdb_helpers import one


def check(con: duckdb.DuckDBPyConnection, column: str | None, inputs: list[Input], estimator: str) -> None:
    """Usage errors of --group before any work."""
    if column is None:
        return
    if len(inputs) != 1 or not inputs[0].per_sample:
        raise UsageError("--group applies to one per-sample input")
    if estimator != "plateau-trapezoid":
        raise UsageError("--group is computed for --estimator plateau-trapezoid")
    check_column(con, column, inputs[0].experiment_id, inputs[0].label)


def check_column(con: duckdb.DuckDBPyConnection, column: str, experiment_id: int, label: str) -> None:
    """UsageError unless `column` is label, prediction or an attribute of the experiment."""
    if column in GROUP_COLUMNS:
        return
    names = [
        str(r[0])
        for r in con.execute(
            "SELECT DISTINCT name FROM sample_attributes WHERE experiment_id = ? ORDER BY name",
            [experiment_id],
        ).fetchall()
    ]
    if column not in names:
        raise UsageError(
            f"--group {column}: not a column of {label}; choose one of " + ", ".join([*GROUP_COLUMNS, *names])
        )


def group_values(con: duckdb.DuckDBPyConnection, column: str, experiment_id: int, label: str) -> None:
    """TEMP TABLE eval_group_values (sample_index, sample_id, grp): each sample's value of the
    per-sample column (InputError naming the first sample, in file order, without one)."""
    if column in GROUP_COLUMNS:
        values = f"SELECT sample_index, sample_id, {column} AS grp FROM samples WHERE experiment_id = $e"
    else:  # an attribute: every sample has its row (NULL for an empty cell)
        values = (
            "SELECT u.sample_index, u.sample_id, a.value AS grp FROM samples AS u "
            "JOIN sample_attributes AS a ON a.experiment_id = u.experiment_id "
            "AND a.sample_index = u.sample_index AND a.name = $name WHERE u.experiment_id = $e"
        )
    params = {"e": experiment_id, **({} if column in GROUP_COLUMNS else {"name": column})}
    con.execute(f"CREATE OR REPLACE TEMP TABLE eval_group_values AS {values}", params)
    missing = one(
        con.execute("SELECT sample_id FROM eval_group_values WHERE grp IS NULL ORDER BY sample_index LIMIT 1")
    )
    if missing:
        raise InputError(f"--group {column}: sample {missing[0]} of {label} has no {column}")


def _grouped(con: duckdb.DuckDBPyConnection, column: str, inp: Input) -> None:
    """TEMP TABLE eval_grouped: eval_scored with each unit's group `grp` (group_values)."""
    group_values(con, column, inp.experiment_id, inp.label)
    con.execute(
        """CREATE OR REPLACE TEMP TABLE eval_grouped AS SELECT s.*, u.grp
        FROM eval_scored AS s JOIN eval_group_values AS u ON u.sample_index = s.item_index"""
    )
    con.execute("DROP TABLE eval_group_values")


def evaluate(
    con: duckdb.DuckDBPyConnection,
    column: str,
    inp: Input,
    series: list[Series],
    variants: dict[str, Any],
    participants: list[int],
    b: int,
    seed: int,
    alphas: list[float],
) -> dict[str, Any]:
    """The artifact's `groups` block (eval_scored holds the evaluation's series; it is replaced)."""
    _grouped(con, column, inp)
    groups = [str(r[0]) for r in con.execute("SELECT DISTINCT grp FROM eval_grouped ORDER BY grp").fetchall()]
    names = list(variants)
    of = {name: next(s.computed for s in series if s.csf.name == name) for name in names}
    computed = sorted(set(of.values()))
    g_count = len(groups)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE eval_scored AS "
        "SELECT CAST(list_position(?::INTEGER[], series) - 1 AS INTEGER) * ? "
        "+ CAST(list_position(?::VARCHAR[], grp) - 1 AS INTEGER) AS series, "
        "CAST(list_position(?::VARCHAR[], grp) - 1 AS INTEGER) AS population, "
        "participant_id, item_index, confidence, loss, loss_scale FROM eval_grouped",
        [computed, g_count, groups, groups],
    )
    per = [Series(k, 0, series[0].csf, k) for k in range(len(computed) * g_count)]
    engine.drop_series(con, per)
    res = replicates.compute(con, per, participants, b, seed, alphas)
    sizes = dict(
        con.execute(
            "SELECT grp, count(*) FROM eval_grouped WHERE series = ? GROUP BY grp", [computed[0]]
        ).fetchall()
    )
    metrics: dict[str, Any] = {}
    for name in names:
        block: dict[str, Any] = {}
        for g, value in enumerate(groups):
            k = computed.index(of[name]) * g_count + g
            block[value] = group_metrics(res, k, int(sizes.get(value, 0)), b, alphas)
        metrics[name] = block
    return {
        "column": column,
        "values": groups,
        "metrics": metrics,
        "coverage_gaps": _gaps(con, names, of, variants, alphas),
    }


def group_metrics(res: Any, k: int, n: int, b: int, alphas: list[float]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": n}
    ci: dict[str, Any] = {}
    # a replicate that drew no sample of the group has no Cmax; Coverage@Risk reads 0 there,
    # which is no coverage of the group: every metric of that replicate is dropped
    absent = np.isnan(res.scalars["cmax"][k][1:])
    for key in ("cmax", "aurc_full", "augrc_full"):
        arr = res.scalars[key][k]
        out[key] = None if np.isnan(arr[0]) else float(arr[0])
        ci[key] = interval(out[key], np.where(absent, np.nan, arr[1:]))[0] if b > 0 else None
    out["coverage_at_risk"], ci["coverage_at_risk"] = {}, {}
    for a in alphas:
        arr = res.scalars[f"car_coverage@{a!r}"][k]
        out["coverage_at_risk"][grid_key(a)] = float(arr[0])
        kept = np.where(absent, np.nan, arr[1:])
        ci["coverage_at_risk"][grid_key(a)] = interval(float(arr[0]), kept)[0] if b > 0 else None
    out["ci95"] = ci
    return out


def _gaps(
    con: duckdb.DuckDBPyConnection,
    names: list[str],
    of: dict[str, int],
    variants: dict[str, Any],
    alphas: list[float],
) -> dict[str, Any]:
    """Per CSF and alpha: each group's coverage at the CSF's Coverage@Risk(alpha) threshold on
    the whole population, and the gap (largest minus smallest)."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE eval_group_thresholds (series INTEGER, alpha DOUBLE, threshold DOUBLE)"
    )
    con.executemany(
        "INSERT INTO eval_group_thresholds VALUES (?, ?, ?)",
        [list(r) for r in threshold_rows(names, of, variants, alphas)],
    )
    rows = con.execute(
        "SELECT series, alpha, grp, coverage FROM rc_group_coverage('eval_grouped', 'eval_group_thresholds') "
        "ORDER BY series, alpha, grp"
    ).fetchall()
    return gaps_of(names, of, variants, alphas, rows)


def threshold_rows(
    names: list[str], of: dict[str, int], variants: dict[str, Any], alphas: list[float]
) -> list[tuple[int, float, float | None]]:
    """(series, alpha, threshold): each CSF's Coverage@Risk(alpha) threshold on the whole
    population (None where no working point qualifies), the groups' coverage compared there."""
    return [
        (of[name], a, variants[name]["coverage_at_risk"][grid_key(a)]["threshold"])
        for name in names
        for a in alphas
    ]


def gaps_of(
    names: list[str],
    of: dict[str, int],
    variants: dict[str, Any],
    alphas: list[float],
    rows: list[tuple[Any, ...]],
) -> dict[str, Any]:
    """The `coverage_gaps` block from the (series, alpha, grp, coverage) rows of the groups'
    coverage at threshold_rows (rc_group_coverage, or its portable twin on Spark)."""
    got: dict[tuple[int, float], dict[str, float]] = {}
    for sid, alpha, grp, cov in rows:
        got.setdefault((int(sid), float(alpha)), {})[str(grp)] = float(cov)
    out: dict[str, Any] = {}
    for name in names:
        out[name] = {}
        for a in alphas:
            cov = got.get((of[name], a), {})
            out[name][grid_key(a)] = {
                "threshold": variants[name]["coverage_at_risk"][grid_key(a)]["threshold"],
                "coverage": cov,
                "gap": (max(cov.values()) - min(cov.values())) if cov else None,
            }
    return out
