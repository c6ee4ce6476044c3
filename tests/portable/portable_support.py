"""Shared by the portable-SQL tests: random per-sample data with ties, abstentions, 0/1,
integer and continuous losses and a few bootstrap replicates; the same data through the
DuckDB macros of sql/ (the reference) and as the input relations of sql/portable/."""

from __future__ import annotations

import math
from typing import Any

import duckdb
import numpy as np

from riskcov.resources import resource_dir
from rows_at_once import insert

AREA_C = 0.5
COVERAGES = [0.1, 0.25, 0.5, 0.75, 0.9, 1.0]
ALPHAS = [0.0, 0.05, 0.2, 0.35, 0.5, 1.0]
COSTS = [0.0, 0.5, 1.0, 2.0, 4.0]  # riskcov sql's default --costs
LABEL = "(cluster * 7 + unit) % 3"  # a unit's class (SQL over scored's columns)
# series 0: 0/1 losses; 1: PHQ-8-like integer losses 0..3 with loss_scale 3; 2: continuous
KINDS = ("binary", "integer", "continuous")


def make_data(seed: int, clusters: int = 12, replicates: int = 3) -> dict[str, list[tuple[Any, ...]]]:
    """scored rows (series, cluster, unit, confidence, loss, loss_scale) and sample rows
    (replicate, cluster, multiplicity): replicate 0 every cluster once, then numpy's draws."""
    rng = np.random.default_rng(seed)
    levels = rng.choice([0.05, 0.2, 0.5, 0.5, 0.8, 0.95], size=4, replace=False)
    scored = []
    for series, kind in enumerate(KINDS):
        for cluster in range(clusters):
            for unit in range(int(rng.integers(1, 4))):
                if rng.random() < 0.15:
                    scored.append((series, cluster, unit, None, None, 3.0 if kind == "integer" else 1.0))
                    continue
                tied = rng.random() < 0.6
                conf = float(rng.choice(levels)) if tied else float(rng.random())
                if kind == "binary":
                    loss, scale = float(rng.random() < 0.3), 1.0
                elif kind == "integer":
                    loss, scale = float(rng.integers(0, 4)), 3.0
                else:
                    loss, scale = float(rng.choice([0.1, 1 / 3, 0.0, rng.exponential()])), 1.0
                scored.append((series, cluster, unit, conf, loss, scale))
    samples = [(0, c, 1) for c in range(clusters)]
    draws = np.random.RandomState(seed).randint(0, clusters, size=(replicates, clusters))
    for b, row in enumerate(draws, start=1):
        ids, counts = np.unique(row, return_counts=True)
        samples += [(b, int(i), int(n)) for i, n in zip(ids, counts, strict=True)]
    return {"scored": scored, "samples": samples}


def load_inputs(con: duckdb.DuckDBPyConnection, data: dict[str, list[tuple[Any, ...]]]) -> None:
    """The portable queries' input relations as tables of `con` (DuckDB)."""
    con.execute(
        "CREATE OR REPLACE TABLE scored (series INTEGER, cluster INTEGER, unit INTEGER, "
        "confidence DOUBLE, loss DOUBLE, loss_scale DOUBLE)"
    )
    insert(con, "scored", data["scored"])
    # every unit's class, the same in each series (a sample's label)
    con.execute(f"CREATE OR REPLACE TABLE labelled AS SELECT *, {LABEL} AS label FROM scored")
    con.execute("CREATE OR REPLACE TABLE samples (replicate INTEGER, cluster INTEGER, multiplicity INTEGER)")
    insert(con, "samples", data["samples"])
    for table, column, values in (
        ("truncation", "c", [AREA_C]),
        ("coverages", "c", COVERAGES),
        ("alphas", "alpha", ALPHAS),
        ("costs", "cost", COSTS),
    ):
        con.execute(f"CREATE OR REPLACE TABLE {table} ({column} DOUBLE)")
        insert(con, table, [(v,) for v in values])


def load_macros(con: duckdb.DuckDBPyConnection) -> None:
    """Every rc_* macro of sql/, each once the macros it calls exist (a file that fails to bind
    is retried after the others), so the reference follows sql/ as it changes."""
    pending = sorted((resource_dir("sql")).glob("rc_*.sql"))
    while pending:
        failed = []
        for path in pending:
            try:
                con.execute(path.read_text())
            except duckdb.CatalogException:
                failed.append(path)
        if len(failed) == len(pending):
            raise AssertionError(f"macros that never bind: {[p.name for p in failed]}")
        pending = failed


def reference(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[Any, ...]]]:
    """What the macros of sql/ give on the tables of load_inputs, keyed like the portable
    queries, rows sorted."""
    load_macros(con)
    con.execute(
        "CREATE OR REPLACE TABLE m_scored AS SELECT series, series AS population, cluster AS participant_id, "
        "unit AS item_index, confidence, loss, loss_scale FROM scored"
    )
    con.execute(
        "CREATE OR REPLACE TABLE m_samples AS SELECT replicate, cluster AS participant_id, multiplicity "
        "FROM samples"
    )
    con.execute("CREATE OR REPLACE TABLE m_cells AS FROM rc_cells('m_scored')")
    con.execute(
        "CREATE OR REPLACE TABLE m_labelled AS SELECT s.*, l.label FROM m_scored AS s JOIN labelled AS l "
        "ON l.series = s.series AND l.cluster = s.participant_id AND l.unit = s.item_index"
    )
    con.execute("CREATE OR REPLACE TABLE m_class_cells AS FROM rc_class_cells('m_labelled')")
    for table, macro in (
        ("m_series", "rc_series"),
        ("m_people", "rc_people"),
        ("m_losses", "rc_loss_counts"),
    ):
        con.execute(f"CREATE OR REPLACE TABLE {table} AS FROM {macro}('m_scored')")
    con.execute("CREATE OR REPLACE TABLE m_harmonic AS FROM rc_harmonic(1000)")
    con.execute("CREATE OR REPLACE TABLE m_totals AS FROM rc_totals_of('m_series', 'm_people', 'm_samples')")
    con.execute(
        "CREATE OR REPLACE TABLE m_points AS WITH increments AS "
        "(FROM rc_plateaus('m_scored', 'm_cells', 'm_samples')) FROM rc_running('increments', 'm_totals')"
    )
    out = {
        "points": con.execute(
            "SELECT series, replicate, plateau, threshold, k_cum, coverage, selective_risk, "
            "generalized_risk, coverage_prev, selective_risk_prev, generalized_risk_prev "
            "FROM m_points ORDER BY ALL"
        ).fetchall(),
        "summary": con.execute(
            "SELECT series, replicate, cmax, aurc_full, augrc_full, aurc_at_c, augrc_at_c, n_points, "
            "aurc_interpolated_points, aurc_optimal, augrc_optimal, eaurc, eaugrc, losses_binary, "
            "aurc_optimal_population, eaurc_population FROM rc_summary_of('m_losses', 'm_samples', "
            "'m_points', 'm_totals', 'm_harmonic', ?, 'plateau-trapezoid') ORDER BY ALL",
            [AREA_C],
        ).fetchall(),
        "mae_at_coverage": con.execute(
            "SELECT series, replicate, requested, achieved, value "
            "FROM rc_mae_at_coverages('m_points', ?, 'plateau-trapezoid') ORDER BY ALL",
            [COVERAGES],
        ).fetchall(),
        "coverage_at_risk": con.execute(
            "SELECT series, replicate, alpha, coverage, risk, threshold "
            "FROM rc_coverage_at_risks('m_points', ?) ORDER BY ALL",
            [ALPHAS],
        ).fetchall(),
        "balanced": con.execute(
            "SELECT series, replicate, aurc_ba, augrc_ba FROM rc_balanced_of('m_class_cells', 'm_samples', "
            "'m_points') ORDER BY ALL"
        ).fetchall(),
        "effective_reliability": con.execute(
            "SELECT series, replicate, cost, phi, threshold, coverage "
            "FROM rc_effective_reliability('m_points', 'm_totals', ?) ORDER BY ALL",
            [COSTS],
        ).fetchall(),
    }
    return out


PORTABLE_COLUMNS = {
    "points": "series, replicate, plateau, threshold, k_cum, coverage, selective_risk, generalized_risk, "
    "coverage_prev, selective_risk_prev, generalized_risk_prev",
    "summary": "series, replicate, cmax, aurc_full, augrc_full, aurc_at_c, augrc_at_c, n_points, "
    "aurc_interpolated_points, aurc_optimal, augrc_optimal, eaurc, eaugrc, losses_binary, "
    "aurc_optimal_population, eaurc_population",
    "mae_at_coverage": "series, replicate, requested, achieved, value",
    "coverage_at_risk": "series, replicate, alpha, coverage, risk, threshold",
    "effective_reliability": "series, replicate, cost, phi, threshold, coverage",
    "balanced": "series, replicate, aurc_ba, augrc_ba",
}


def wrap(name: str, sql: str) -> str:
    """A rendered query's rows in the reference's columns and order."""
    return f"SELECT {PORTABLE_COLUMNS[name]} FROM ({sql}) AS q ORDER BY {PORTABLE_COLUMNS[name]}"


def close(a: Any, b: Any, exact: bool, rel: float = 1e-13, abs_tol: float = 1e-15) -> bool:
    """Equal values: bit for bit when `exact`, else within `rel` of the larger (or `abs_tol`)."""
    if a is None or b is None or isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if exact:
        return float(a) == float(b) or (math.isnan(a) and math.isnan(b))
    return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=abs_tol)


def mismatches(
    name: str,
    got: list[tuple[Any, ...]],
    want: list[tuple[Any, ...]],
    exact_series: set[int],
    rel: float = 1e-13,
    abs_tol: float = 1e-15,
) -> list[str]:
    """Rows that differ (a row's series decides whether exactness applies); [] when equal."""
    if len(got) != len(want):
        return [f"{name}: {len(got)} rows, the reference {len(want)}"]
    out = []
    for g, w in zip(got, want, strict=True):
        exact = g[0] in exact_series
        if name == "effective_reliability" and not exact:
            # continuous losses: two points whose gains tie in the reals (a loss of exactly
            # c / (1 + c)) are told apart by the last bit of their loss sums, which the macros'
            # limbs and the portable DECIMAL round differently: Phi_c agrees, its point may not
            g, w = g[:4], w[:4]
        if g[:2] != w[:2] or not all(close(x, y, exact, rel, abs_tol) for x, y in zip(g, w, strict=True)):
            out.append(f"{name}: {g} != reference {w}")
    return out
