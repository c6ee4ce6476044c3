"""Class-balanced AURC and AUGRC (docs/metrics-extended.md): the SQL macros against a plain
oracle written from the definition (exact fractions), against fd-shifts' formulas (its
ascending sweep and trapezoid, re-derived here) on random data with ties, and end to end
through `evaluate` with bootstrap CIs over the same cluster draws."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from metrics_support import draws, evaluate_text, plateau_areas

from rows_at_once import insert

# (confidence or None when abstained, loss, label)
Sample = tuple[float | None, float, str]


def oracle(samples: list[Sample]) -> tuple[Fraction, Fraction]:
    """(aurc_ba, augrc_ba) by the definition: at each distinct confidence t (most confident
    first) accept every sample with confidence >= t; selective BA risk = mean over the K classes
    of accepted loss / accepted count (0 for a class with none accepted), constant back to
    coverage 0; generalized BA risk = mean over classes of accepted loss / class size, 0 at
    coverage 0; trapezoids between consecutive points, up to the last accepted point."""
    n = len(samples)
    classes = sorted({s[2] for s in samples})
    size = {k: sum(1 for s in samples if s[2] == k) for k in classes}
    points = []
    for t in sorted({s[0] for s in samples if s[0] is not None}, reverse=True):
        acc = [s for s in samples if s[0] is not None and s[0] >= t]
        sel = gen = Fraction(0)
        for k in classes:
            mine = [Fraction(s[1]) for s in acc if s[2] == k]
            sel += sum(mine) / len(mine) if mine else 0
            gen += sum(mine, Fraction(0)) / size[k]
        points.append((Fraction(len(acc), n), sel / len(classes), gen / len(classes)))
    aurc, augrc = plateau_areas(points)
    return Fraction(aurc), Fraction(augrc)


def fd_shifts(conf: np.ndarray, residuals: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """fd-shifts' AURC-BA and AUGRC-BA (analysis/rc_stats_utils.py, without the x1000), re-derived:
    samples sorted by ascending confidence are removed one at a time from full coverage, a point
    kept where the confidence changes; the selective BA risk is the mean of per-class error
    sums over per-class remaining counts (0 where a class has none left), the generalized one
    the generalized risk of residuals weighted n / (K n_k); then coverage 0 (selective: the last
    risk again; generalized: 0) and the trapezoid rule."""
    order = np.argsort(conf, kind="stable")
    conf, res, lab = conf[order], residuals[order], labels[order]
    names, counts = np.unique(lab, return_counts=True)
    at = {name: i for i, name in enumerate(names)}
    n, k = len(conf), len(names)
    left = counts.astype(float)
    errors = np.array([res[lab == name].sum() for name in names])
    weighted = res * np.array([n / (k * counts[at[x]]) for x in lab])
    total = weighted.sum()
    cov, sel, gen = [1.0], [float(np.mean(errors / left))], [total / n]
    for i in range(n - 1):
        left[at[lab[i]]] -= 1
        errors[at[lab[i]]] -= res[i]
        total -= weighted[i]
        if conf[i] != conf[i + 1]:
            per_class = np.divide(errors, left, out=np.zeros_like(errors), where=left != 0)
            cov.append((n - i - 1) / n)
            sel.append(float(per_class.mean()))
            gen.append(total / n)
    cov.append(0.0)
    sel.append(sel[-1])
    gen.append(0.0)
    return -float(np.trapezoid(sel, cov)), -float(np.trapezoid(gen, cov))


def macro_values(
    con: duckdb.DuckDBPyConnection, rows: list[tuple[int, Sample]], weights: dict[int, list[int]]
) -> dict[int, tuple[float, float]]:
    """rc_balanced_of over rc_points of one series: rows (cluster, sample), weights cluster ->
    multiplicity per replicate. {replicate: (aurc_ba, augrc_ba)}"""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE t_labelled (series INTEGER, population INTEGER, participant_id"
        " BIGINT, item_index BIGINT, confidence DOUBLE, loss DOUBLE, loss_scale DOUBLE, label VARCHAR)"
    )
    insert(
        con,
        "t_labelled",
        [
            [0, 0, cluster, i, conf, None if conf is None else loss, 1.0, label]
            for i, (cluster, (conf, loss, label)) in enumerate(rows)
        ],
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE t_samples "
        "(replicate INTEGER, participant_id BIGINT, multiplicity INTEGER)"
    )
    insert(con, "t_samples", [[rep, c, m] for c, ms in weights.items() for rep, m in enumerate(ms) if m > 0])
    con.execute("CREATE OR REPLACE TEMP TABLE t_scored AS SELECT * EXCLUDE (label) FROM t_labelled")
    con.execute("CREATE OR REPLACE TEMP TABLE t_totals AS FROM rc_totals('t_scored', 't_samples')")
    con.execute(
        "CREATE OR REPLACE TEMP TABLE t_points AS FROM rc_points('t_scored', 't_samples', 't_totals')"
    )
    con.execute("CREATE OR REPLACE TEMP TABLE t_cells AS FROM rc_class_cells('t_labelled')")
    got = con.execute(
        "SELECT replicate, aurc_ba, augrc_ba FROM rc_balanced_of('t_cells', 't_samples', 't_points') "
        "ORDER BY replicate"
    ).fetchall()
    return {r: (a, g) for r, a, g in got}


@pytest.fixture(scope="module")
def con(warehouse_template: Path) -> Any:
    c = duckdb.connect(str(warehouse_template), read_only=True)
    yield c
    c.close()


confidences = st.sampled_from([None, 0.1, 0.3, 0.5, 0.7, 0.9])  # ties and abstentions
samples_st = st.lists(
    st.tuples(
        st.integers(0, 5),  # cluster
        st.tuples(confidences, st.sampled_from([0.0, 1.0, 0.25, 0.5]), st.sampled_from("abc")),
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(rows=samples_st, mults=st.lists(st.integers(0, 3), min_size=6, max_size=6))
def test_the_macros_equal_the_definition_on_weighted_replicates(con, rows, mults):
    """Replicate 0 weights every cluster once, replicate 1 by `mults`: a replicate is the
    sample with each cluster's samples repeated that many times."""
    clusters = sorted({c for c, _ in rows})
    weights = {c: [1, mults[c]] for c in clusters}
    got = macro_values(con, rows, weights)
    for rep in (0, 1):
        drawn = [s for c, s in rows for _ in range(weights[c][rep])]
        if not drawn:
            assert rep not in got  # a replicate that draws nothing has no block
            continue
        aurc, augrc = oracle(drawn)
        assert got[rep] == pytest.approx((float(aurc), float(augrc)), rel=1e-12, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(0, 6), st.booleans(), st.sampled_from(["0", "1", "2", "3"])),
        min_size=2,
        max_size=40,
    )
)
def test_the_macros_equal_fd_shifts_formulas(con, data):
    conf = np.array([c / 6 for c, _, _ in data])
    residuals = np.array([float(wrong) for _, wrong, _ in data])
    labels = np.array([lab for _, _, lab in data])
    rows = [(i, (float(conf[i]), float(residuals[i]), str(labels[i]))) for i in range(len(data))]
    got = macro_values(con, rows, {i: [1] for i in range(len(data))})[0]
    assert got == pytest.approx(fd_shifts(conf, residuals, labels), rel=1e-12, abs=1e-15)


def test_a_worked_example_by_hand(con):
    # confidence 0.9 0.7 0.7 0.5 0.2 0.2, labels a a b b c a, wrong at samples 2 and 4
    rows = [
        (1, (0.9, 0.0, "a")),
        (2, (0.7, 1.0, "a")),
        (3, (0.7, 0.0, "b")),
        (4, (0.5, 1.0, "b")),
        (5, (0.2, 0.0, "c")),
        (6, (0.2, 0.0, "a")),
    ]
    # points (coverage, sel BA, gen BA): (1/6, 0, 0), (1/2, (1/2 + 0 + 0)/3, (1/3)/3),
    # (2/3, (1/2 + 1/2)/3, (1/3 + 1/2)/3), (1, (1/3 + 1/2 + 0)/3, (1/3 + 1/2)/3)
    aurc = 0 + (1 / 3) * (0 + 1 / 6) / 2 + (1 / 6) * (1 / 6 + 1 / 3) / 2 + (1 / 3) * (1 / 3 + 5 / 18) / 2
    augrc = (1 / 3) * (1 / 9) / 2 + (1 / 6) * (1 / 9 + 5 / 18) / 2 + (1 / 3) * (5 / 18)
    assert macro_values(con, rows, {c: [1] for c in range(1, 7)})[0] == pytest.approx(
        (aurc, augrc), rel=1e-14
    )
    assert (aurc, augrc) == pytest.approx((37 / 216, 31 / 216), rel=1e-14)


def test_evaluate_reports_them_with_cis_over_the_same_cluster_draws(tmp_path, run_cli):
    rng = np.random.RandomState(7)
    by_cluster: dict[int, list[Sample]] = {}
    lines = []
    for i in range(30):
        cluster = i % 8
        abstained = rng.rand() < 0.1
        conf = None if abstained else float(rng.randint(0, 5)) / 4
        label, pred = "xyz"[rng.randint(0, 3)], "xyz"[rng.randint(0, 3)]
        lines.append(f"{i},{cluster},{'' if conf is None else conf},{label},{pred},{str(abstained).lower()}")
        by_cluster.setdefault(cluster, []).append((conf, float(label != pred), label))
    text = "sample_id,cluster,confidence,label,prediction,abstained\n" + "\n".join(lines) + "\n"
    b, seed = 30, 5
    m = evaluate_text(run_cli, tmp_path, text, "--bootstrap-resamples", str(b), "--seed", str(seed))
    m = m["confidence_variants"]["confidence"]
    pids = sorted(by_cluster)
    point = oracle([s for c in pids for s in by_cluster[c]])
    assert (m["aurc_ba"], m["augrc_ba"]) == pytest.approx(tuple(map(float, point)), rel=1e-12)
    reps = [oracle([s for j in row for s in by_cluster[pids[j]]]) for row in draws(len(pids), b, seed)]
    for n, key in enumerate(("aurc_ba", "augrc_ba")):
        expected = np.percentile([float(r[n]) for r in reps], [2.5, 97.5])
        assert m["bootstrap"]["ci95"][key] == pytest.approx(list(expected), rel=1e-12, abs=1e-15)
    # the warehouse's stored point metrics (v_metrics) have the same numbers, bit for bit
    assert _stored(tmp_path) == [(m["aurc_ba"], m["augrc_ba"])]


def _stored(tmp_path: Path) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    try:
        return con.execute("SELECT aurc_ba, augrc_ba FROM v_metrics ORDER BY csf").fetchall()
    finally:
        con.close()


def test_runs_without_labels_have_no_class_balanced_keys(tmp_path, run_cli):
    text = "sample_id,confidence,correct\n1,0.9,1\n2,0.7,0\n3,0.5,1\n"
    m = evaluate_text(run_cli, tmp_path, text, "--bootstrap-resamples", "0")["confidence_variants"][
        "confidence"
    ]
    assert "aurc_ba" not in m and "augrc_ba" not in m
    assert _stored(tmp_path) == [(None, None)]
