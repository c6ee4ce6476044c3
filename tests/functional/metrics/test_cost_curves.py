"""Effective reliability per cost and the oracle-gap area (docs/metrics-extended.md): the SQL
macro against a plain oracle written from the definition (exact fractions), and end to end
through `evaluate` (artifact, stored rows)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from metrics_support import draws, evaluate_text

# (confidence or None when abstained, loss)
Sample = tuple[float | None, float]
COSTS = [0.0, 0.5, 1.0, 2.0, 4.0]


def best_phi(samples: list[Sample], cost: float) -> tuple[Fraction, float | None]:
    """(best Phi_c, its threshold): accept every sample with confidence >= t, each accepted one
    scoring (1 - loss) - c * loss, the rest 0, mean over all N; the best t, ties to the higher
    t; accepting nothing (0, None) unless some t scores above 0."""
    n, c = len(samples), Fraction(cost)
    best: tuple[Fraction, float | None] = (Fraction(0), None)
    for t in sorted({s[0] for s in samples if s[0] is not None}, reverse=True):
        phi = (
            sum(
                (
                    (1 - Fraction(loss)) - c * Fraction(loss)
                    for conf, loss in samples
                    if conf is not None and conf >= t
                ),
                Fraction(0),
            )
            / n
        )
        if phi > best[0]:
            best = (phi, t)
    return best


def oracle_gap_area(samples: list[Sample]) -> float:
    """The integral over [0, Cmax] of acc_oracle(c) - acc(c), 0/1 losses: acc(c) is one minus
    the plateau-trapezoid selective risk (constant below the first point, linear between
    points); acc_oracle(c) = 1 up to a = (correct accepted) / N, then a / c."""
    n = len(samples)
    points = []
    for t in sorted({s[0] for s in samples if s[0] is not None}, reverse=True):
        acc = [loss for conf, loss in samples if conf is not None and conf >= t]
        points.append((len(acc) / n, 1 - sum(acc) / len(acc)))
    cmax = points[-1][0]
    model = points[0][0] * points[0][1]
    for (c0, a0), (c1, a1) in itertools.pairwise(points):
        model += (c1 - c0) * (a0 + a1) / 2
    a = sum(1 for conf, loss in samples if conf is not None and loss == 0) / n
    oracle = cmax if a >= cmax else a + (a * math.log(cmax / a) if a > 0 else 0.0)
    return oracle - model


@pytest.fixture(scope="module")
def con(warehouse_template: Path) -> Any:
    c = duckdb.connect(str(warehouse_template), read_only=True)
    yield c
    c.close()


def macro_rows(con: duckdb.DuckDBPyConnection, samples: list[Sample]) -> dict[float, tuple[Any, ...]]:
    con.execute(
        "CREATE OR REPLACE TEMP TABLE t_scored (series INTEGER, population INTEGER, participant_id BIGINT,"
        " item_index BIGINT, confidence DOUBLE, loss DOUBLE, loss_scale DOUBLE)"
    )
    con.executemany(
        "INSERT INTO t_scored VALUES (0, 0, ?, 0, ?, ?, 1.0)",
        [[i, conf, None if conf is None else loss] for i, (conf, loss) in enumerate(samples)],
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE t_samples AS SELECT DISTINCT 0 AS replicate, participant_id,"
        " 1 AS multiplicity FROM t_scored"
    )
    con.execute("CREATE OR REPLACE TEMP TABLE t_totals AS FROM rc_totals('t_scored', 't_samples')")
    con.execute(
        "CREATE OR REPLACE TEMP TABLE t_points AS FROM rc_points('t_scored', 't_samples', 't_totals')"
    )
    rows = con.execute(
        "SELECT cost, phi, threshold, coverage "
        "FROM rc_effective_reliability('t_points', 't_totals', ?) ORDER BY cost",
        [COSTS],
    ).fetchall()
    return {r[0]: r[1:] for r in rows}


sample_lists = st.lists(
    st.tuples(st.sampled_from([None, 0.1, 0.3, 0.5, 0.7, 0.9]), st.sampled_from([0.0, 1.0, 0.25])),
    min_size=1,
    max_size=25,
)


@settings(max_examples=80, deadline=None)
@given(samples=sample_lists)
def test_the_macro_equals_the_definition(con, samples):
    got = macro_rows(con, samples)
    n = len(samples)
    if all(conf is None for conf, _ in samples):  # no working point: accepting nothing
        assert got == {c: (0.0, None, 0.0) for c in COSTS}
        return
    for c in COSTS:
        phi, threshold = best_phi(samples, c)
        accepted = sum(
            1 for conf, _ in samples if threshold is not None and conf is not None and conf >= threshold
        )
        assert got[c][0] == pytest.approx(float(phi), rel=1e-12, abs=1e-15)
        assert got[c][1:] == (threshold, pytest.approx(accepted / n, rel=1e-15))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_evaluate_reports_the_best_threshold_per_cost_and_the_oracle_gap(tmp_path, run_cli, seed):
    rng = np.random.RandomState(seed)
    samples: list[Sample] = []
    lines = []
    for i in range(25):
        abstained = rng.rand() < 0.1
        conf = None if abstained else float(rng.randint(0, 8)) / 8
        loss = float(rng.rand() < 0.35)
        samples.append((conf, loss))
        lines.append(f"{i},{'' if conf is None else conf},{int(loss == 0)},{str(abstained).lower()}")
    text = "sample_id,confidence,correct,abstained\n" + "\n".join(lines) + "\n"
    art = evaluate_text(run_cli, tmp_path, text, "--bootstrap-resamples", "0", "--costs", "0,1,3")
    m = art["confidence_variants"]["confidence"]
    assert art["options"]["costs"] == [0.0, 1.0, 3.0]
    for c in (0.0, 1.0, 3.0):
        phi, threshold = best_phi(samples, c)
        got = m["effective_reliability"][f"{c:.2f}"]
        assert (got["cost"], got["threshold"]) == (c, threshold)
        assert got["value"] == pytest.approx(float(phi), rel=1e-12, abs=1e-15)
    assert m["oracle_gap_area"] == pytest.approx(oracle_gap_area(samples), rel=1e-12, abs=1e-15)
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    try:
        stored = dict(
            con.execute(
                "SELECT metric, value FROM evaluation_metrics WHERE metric_base LIKE 'effective_reliability%'"
                " OR metric = 'oracle_gap_area'"
            ).fetchall()
        )
    finally:
        con.close()
    assert stored["effective_reliability_1.00"] == m["effective_reliability"]["1.00"]["value"]
    assert stored["effective_reliability_threshold_3.00"] == m["effective_reliability"]["3.00"]["threshold"]
    assert stored["oracle_gap_area"] == m["oracle_gap_area"]


def test_effective_reliability_cis_are_the_percentiles_of_each_replicates_best_phi(tmp_path, run_cli):
    """Each replicate (the same cluster draws as the other metrics) gets its own best Phi_c over
    its own working points; the CI is the 2.5/97.5 percentile of those, as for every metric."""
    rng = np.random.RandomState(3)
    by_cluster: dict[int, list[Sample]] = {}
    lines = []
    for i in range(30):
        cluster, conf, loss = i % 10, float(rng.randint(0, 6)) / 5, float(rng.rand() < 0.3)
        by_cluster.setdefault(cluster, []).append((conf, loss))
        lines.append(f"{i},{cluster},{conf},{int(loss == 0)}")
    b, seed = 60, 7
    text = "sample_id,cluster,confidence,correct\n" + "\n".join(lines) + "\n"
    args = ["--bootstrap-resamples", str(b), "--seed", str(seed), "--costs", "0,1,2"]
    art = evaluate_text(run_cli, tmp_path, text, *args)
    m = art["confidence_variants"]["confidence"]
    pids = sorted(by_cluster)
    rows = draws(len(pids), b, seed)
    for c in (0.0, 1.0, 2.0):
        reps = [float(best_phi([s for j in row for s in by_cluster[pids[j]]], c)[0]) for row in rows]
        expected = list(np.percentile(reps, [2.5, 97.5]))
        assert m["bootstrap"]["ci95"]["effective_reliability"][f"{c:.2f}"] == pytest.approx(
            expected, rel=1e-12, abs=1e-15
        )
        assert m["bootstrap"]["std_error"]["effective_reliability"][f"{c:.2f}"] == pytest.approx(
            float(np.std(reps, ddof=1)), rel=1e-9
        )
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    try:
        row = con.execute(
            "SELECT ci_low, ci_high FROM evaluation_metrics WHERE metric = 'effective_reliability_1.00'"
        ).fetchall()
    finally:
        con.close()
    assert list(row[0]) == m["bootstrap"]["ci95"]["effective_reliability"]["1.00"]


def test_costs_are_checked_before_any_work(tmp_path, run_cli):
    r = run_cli(["evaluate", "--input", "x", "--warehouse", tmp_path / "w.duckdb", "--costs", "1,-1"])
    assert (r.exit_code, r.stderr.strip()) == (2, "error: --costs value -1.0 is not a finite number >= 0")
