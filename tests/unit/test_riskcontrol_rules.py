"""Threshold rules of docs/risk-control.md against brute-force oracles written from its text.

Losses are drawn on a dyadic grid (0, 1/4, ..., 1) so every float sum is exact and the
oracles can use Fractions without an ulp of disagreement with the code under test.
"""

from __future__ import annotations

import math
import statistics
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sql_support import rc_macro_connection

from hypothesis_profiles import examples
from riskcov.errors import InputError, UsageError
from riskcov.riskcontrol.bounds import p_value
from riskcov.riskcontrol.rules import apply, candidates, certify, crc, uncertified
from riskcov.riskcontrol.seed_summary import SeedOutcome, mean_std, violation_summary
from riskcov.riskcontrol.working_points import Points, working_points, working_points_of

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"
DYADIC = [0.0, 0.25, 0.5, 0.75, 1.0]
ALPHAS = [0.05, 0.1, 0.15, 0.25, 1 / 3, 0.5]


@pytest.fixture(scope="module")
def con():
    """The working-point macros and Coverage@Risk's on a bare connection (no warehouse)."""
    connection = rc_macro_connection()
    for name in ("rc_coverage_at_risks", "rc_coverage_at_risk"):
        connection.execute((SQL_DIR / f"{name}.sql").read_text())
    yield connection
    connection.close()


@st.composite
def samples(draw, losses=DYADIC, max_n=40):
    """Per-sample (confidence, loss, abstained) arrays with ties and ~20% abstentions."""
    n = draw(st.integers(1, max_n))
    conf = draw(st.lists(st.integers(0, 8), min_size=n, max_size=n))
    loss = draw(st.lists(st.sampled_from(losses), min_size=n, max_size=n))
    abst = draw(st.lists(st.integers(0, 4).map(lambda i: i == 0), min_size=n, max_size=n))
    return np.array(conf, float) / 8, np.array(loss, float), np.array(abst, bool)


def oracle_points(conf, loss, abst):
    """docs/metrics.md: one point per distinct confidence, everything at or above it accepted."""
    kept = [(c, Fraction(x)) for c, x, a in zip(conf, loss, abst, strict=True) if not a]
    levels = sorted({c for c, _ in kept}, reverse=True)
    return [
        (t, sum(1 for c, _ in kept if c >= t), sum((x for c, x in kept if c >= t), Fraction(0)))
        for t in levels
    ]


def oracle_candidates(points, n, g_count):
    chosen = []
    for g in range(1, g_count + 1):
        first = next(
            (j for j, (_, k, _) in enumerate(points) if Fraction(k, n) >= Fraction(g, g_count)), None
        )
        if first is not None and first not in chosen:
            chosen.append(first)
    return chosen


def oracle_certify(points, n, alpha, delta, bound, procedure, g_count):
    cands = oracle_candidates(points, n, g_count)
    ps = [p_value(bound, float(points[j][2]), points[j][1], alpha) for j in cands]
    chosen = None
    if procedure == "fixed-sequence":
        for j, p in zip(cands, ps, strict=True):
            if p > delta:
                break
            chosen = j
    else:
        for j, p in zip(cands, ps, strict=True):
            if p <= delta / len(cands):
                chosen = j if chosen is None or points[j][1] > points[chosen][1] else chosen
    return chosen, cands, ps


@settings(max_examples=examples(100), deadline=None)
@given(data=samples())
def test_working_points_follow_spec_4(con, data):
    pts = working_points(con, *data)
    expected = oracle_points(*data)
    assert pts.threshold.tolist() == [t for t, _, _ in expected]
    assert pts.k_cum.tolist() == [k for _, k, _ in expected]
    assert pts.loss_cum.tolist() == [float(x) for _, _, x in expected]
    assert pts.n_total == len(data[0])


@settings(max_examples=examples(100), deadline=None)
@given(data=samples(), g_count=st.integers(1, 30))
def test_candidates_follow_spec(con, data, g_count):
    pts = working_points(con, *data)
    expected = oracle_candidates(oracle_points(*data), len(data[0]), g_count)
    assert candidates(pts.coverage, g_count).tolist() == expected


def test_candidates_double_comparison_is_the_exact_one():
    # a point at every k = 1..N: the candidate for g is k = ceil(g·N / G), index k - 1
    for n in range(1, 61):
        coverage = np.arange(1, n + 1) / n
        for g_count in range(1, 26):
            expected = sorted({-(-g * n // g_count) - 1 for g in range(1, g_count + 1)})
            assert candidates(coverage, g_count).tolist() == expected, (n, g_count)


@settings(max_examples=examples(120), deadline=None)
@given(
    data=samples(losses=[0.0, 1.0]),
    alpha=st.sampled_from(ALPHAS),
    delta=st.sampled_from([0.05, 0.1, 0.2]),
    g_count=st.integers(1, 25),
    bound=st.sampled_from(["binomial", "hoeffding", "hoeffding-bentkus"]),
    procedure=st.sampled_from(["fixed-sequence", "bonferroni"]),
)
def test_certify_follows_spec(con, data, alpha, delta, g_count, bound, procedure):
    pts = working_points(con, *data)
    oracle = oracle_points(*data)
    chosen, cands, ps = oracle_certify(oracle, len(data[0]), alpha, delta, bound, procedure, g_count)
    got = certify(pts, alpha, delta, bound, procedure, g_count)
    assert got.index == chosen
    assert list(got.candidates) == cands
    assert list(got.p_values) == ps
    if chosen is None:
        assert (got.threshold, got.coverage, got.risk) == (None, 0.0, 0.0)
    else:
        t, k, loss = oracle[chosen]
        assert got.threshold == t
        assert got.coverage == float(Fraction(k, len(data[0])))
        assert got.risk == float(loss / k)


@settings(max_examples=examples(100), deadline=None)
@given(data=samples(), alpha=st.sampled_from(ALPHAS))
def test_uncertified_is_coverage_at_risk(con, data, alpha):
    pts = working_points(con, *data)
    oracle = oracle_points(*data)
    # the largest coverage whose selective risk (a double, L / k) <= alpha
    ok = [j for j, (_, k, loss) in enumerate(oracle) if float(loss) / k <= alpha]
    got = uncertified(con, pts, alpha)
    assert got.index == (ok[-1] if ok else None)
    assert got.coverage == (oracle[ok[-1]][1] / len(data[0]) if ok else 0.0)
    assert got.threshold == (oracle[ok[-1]][0] if ok else None)
    assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchall() == [(0,)]


@settings(max_examples=examples(120), deadline=None)
@given(data=samples(), alpha=st.sampled_from(ALPHAS))
def test_crc_follows_spec(con, data, alpha):
    pts = working_points(con, *data)
    oracle = oracle_points(*data)
    n = len(data[0])
    # walk from the most confident down and keep the last lambda passing (no early stop)
    passing = [
        j
        for j, (_, _, loss) in enumerate(oracle)
        if Fraction(n, n + 1) * (loss / n) + Fraction(1, n + 1) <= Fraction(alpha)
    ]
    assert passing == list(range(len(passing)))  # a prefix: stopping at the first failure agrees
    got = crc(pts, alpha)
    assert got.index == (passing[-1] if passing else None)
    if passing:
        assert got.generalized_risk == float(oracle[passing[-1]][2] / n)


def test_crc_boundary_is_exact():
    # (L + B) / (n + 1) = 2 / 8 = 0.25 exactly: passes at alpha 0.25, not just below it
    pts = Points(np.array([0.9, 0.8]), np.array([3, 7]), np.array([1.0, 2.0]), 7)
    assert crc(pts, 0.25).index == 0
    assert crc(pts, 0.25 - 2**-50).index is None
    assert crc(pts, 3 / 8).index == 1


@settings(max_examples=examples(100), deadline=None)
@given(data=samples(), threshold=st.one_of(st.none(), st.integers(-1, 9).map(lambda i: i / 8)))
def test_apply_follows_spec(data, threshold):
    conf, loss, abst = data
    n = len(conf)
    accepted = [
        Fraction(x)
        for c, x, a in zip(conf, loss, abst, strict=True)
        if threshold is not None and not a and c >= threshold
    ]
    k = len(accepted)
    total = sum(accepted, Fraction(0))
    got = apply(threshold, conf, loss, abst)
    assert got.accepted == k
    assert got.coverage == float(Fraction(k, n))
    assert got.risk == (float(total / k) if k else 0.0)
    assert got.generalized_risk == float(total / n)


def _exact_tail(errors, k, alpha):
    a = Fraction(alpha)
    return sum((math.comb(k, x) * a**x * (1 - a) ** (k - x) for x in range(errors + 1)), Fraction(0))


def test_fixed_sequence_stops_at_a_failing_first_candidate_where_bonferroni_goes_on():
    pts = Points(
        np.array([0.9, 0.8, 0.7, 0.6]), np.array([25, 50, 75, 100]), np.array([2.0, 2.0, 2.0, 2.0]), 100
    )
    exact = [_exact_tail(2, k, 0.1) for k in (25, 50, 75, 100)]
    # the premise: the first fails delta = 0.1, the last two pass delta / 4
    assert exact[0] > Fraction(1, 10) and max(exact[2:]) <= Fraction(1, 40) < exact[1]
    fixed = certify(pts, 0.1, 0.1, "binomial", "fixed-sequence", 4)
    assert (fixed.index, fixed.threshold, fixed.coverage, fixed.risk) == (None, None, 0.0, 0.0)
    assert fixed.candidates == (0, 1, 2, 3)
    assert fixed.p_values == pytest.approx([float(e) for e in exact], rel=1e-12)
    bonf = certify(pts, 0.1, 0.1, "binomial", "bonferroni", 4)
    assert (bonf.index, bonf.threshold, bonf.coverage, bonf.risk) == (3, 0.6, 1.0, 0.02)


def test_fixed_sequence_all_pass_takes_the_last():
    pts = Points(np.array([0.9, 0.5]), np.array([30, 60]), np.array([0.0, 0.0]), 60)
    got = certify(pts, 0.1, 0.1, "binomial", "fixed-sequence", 2)
    assert got.p_values == pytest.approx([0.9**30, 0.9**60], rel=1e-13)
    assert (got.index, got.threshold, got.coverage) == (1, 0.5, 1.0)


def test_bonferroni_divides_delta_by_the_number_of_candidates():
    # p = 0.9^22 ≈ 0.098 passes delta = 0.1 but not 0.1 / 2; the second candidate fails outright
    pts = Points(np.array([0.9, 0.5]), np.array([22, 30]), np.array([0.0, 1.0]), 30)
    assert certify(pts, 0.1, 0.1, "binomial", "fixed-sequence", 2).index == 0
    assert certify(pts, 0.1, 0.1, "binomial", "bonferroni", 2).index is None
    assert certify(pts, 0.1, 0.2, "binomial", "bonferroni", 2).index == 0


def test_nothing_to_accept_when_every_sample_abstained(con):
    pts = working_points(con, np.array([np.nan, np.nan]), np.array([0.0, 1.0]), np.array([True, True]))
    for procedure in ("fixed-sequence", "bonferroni"):
        got = certify(pts, 0.1, 0.1, "hoeffding-bentkus", procedure)
        assert (got.index, got.threshold, got.candidates, got.p_values) == (None, None, (), ())
    assert uncertified(con, pts, 0.1).threshold is None
    assert crc(pts, 0.5).threshold is None


def test_targets_above_cmax_are_dropped_and_duplicates_merged():
    assert candidates(np.array([0.25, 0.5]), 4).tolist() == [0, 1]
    assert candidates(np.array([0.1, 0.6, 0.7]), 4).tolist() == [1]
    assert candidates(np.array([0.3]), 10).tolist() == [0]  # 3/10 >= 3/10 in doubles too


def test_rule_errors(con):
    pts = Points(np.array([0.9]), np.array([2]), np.array([1.0]), 4)
    with pytest.raises(UsageError, match=r"^unknown procedure 'sidak'"):
        certify(pts, 0.1, 0.1, procedure="sidak")
    with pytest.raises(UsageError, match=r"^unknown bound 'chernoff'"):
        certify(pts, 0.1, 0.1, bound="chernoff")
    with pytest.raises(UsageError, match=r"^--candidates must be a positive integer, got 0"):
        certify(pts, 0.1, 0.1, n_candidates=0)
    with pytest.raises(UsageError, match=r"^--delta .* is outside \(0, 1\)$"):
        certify(pts, 0.1, 0.0)
    half = Points(np.array([0.9]), np.array([2]), np.array([0.5]), 2)
    with pytest.raises(InputError, match=r"^accepted loss sum 0\.5 is not a whole count"):
        certify(half, 0.1, 0.1, "binomial", n_candidates=1)
    with pytest.raises(ValueError, match="plateau order"):
        Points(np.array([0.8, 0.9]), np.array([1, 2]), np.array([0.0, 0.0]), 2)
    with pytest.raises(InputError) as err:
        working_points(con, np.array([0.5, np.nan]), np.zeros(2), np.array([False, False]))
    assert str(err.value) == "sample 1 is not abstained but its confidence is nan"


def test_violation_summary_by_hand():
    rows = [SeedOutcome(3, 0.6, 0.12, 0.072), SeedOutcome(1, 0.7, 0.05, 0.035), SeedOutcome(2, 0.5, 0.2, 0.1)]
    s = violation_summary(rows, 0.1, "uncertified", 0.5)
    assert s["seeds"] == [1, 2, 3]
    assert (s["num_seeds"], s["num_violations"], s["violation_rate"]) == (3, 2, 2 / 3)
    assert (s["num_violations_margin"], s["violation_rate_margin"]) == (1, 1 / 3)  # > 0.15
    assert s["mean_risk"] == pytest.approx((0.12 + 0.05 + 0.2) / 3, rel=1e-15)
    assert s["std_risk"] == pytest.approx(statistics.pstdev([0.12, 0.05, 0.2]), rel=1e-13)
    assert s["mean_coverage"] == pytest.approx(0.6, rel=1e-15)
    assert s["std_coverage"] == pytest.approx(math.sqrt(0.02 / 3), rel=1e-13)
    assert [d["violated"] for d in s["details"]] == [False, True, True]
    # crc judges the generalized risk: only seed 2 (0.1) is not above 0.1 either
    c = violation_summary(rows, 0.1, "crc")
    assert (c["num_violations"], c["margin"], c["num_violations_margin"]) == (0, None, None)
    assert violation_summary(rows, 0.09, "crc")["num_violations"] == 1


@settings(max_examples=examples(100), deadline=None)
@given(
    risks=st.lists(st.tuples(st.sampled_from(DYADIC), st.sampled_from(DYADIC)), max_size=12),
    alpha=st.sampled_from(ALPHAS),
    margin=st.sampled_from([0.0, 0.1, 0.5]),
    rule=st.sampled_from(["crc", "uncertified", "fixed-sequence"]),
)
def test_violation_summary_matches_an_oracle(risks, alpha, margin, rule):
    rows = [SeedOutcome(100 - i, cov, risk, risk * cov) for i, (risk, cov) in enumerate(risks)]
    s = violation_summary(rows, alpha, rule, margin)
    judged = [r.generalized_risk if rule == "crc" else r.risk for r in rows]
    assert s["num_violations"] == sum(j > alpha for j in judged)
    assert s["num_violations_margin"] == sum(j > alpha * (1 + margin) for j in judged)
    if rows:
        assert s["violation_rate"] == s["num_violations"] / len(rows)
        assert s["mean_coverage"] == pytest.approx(statistics.fmean(r.coverage for r in rows), rel=1e-12)
        assert s["std_risk"] == pytest.approx(statistics.pstdev(r.risk for r in rows), abs=1e-15)
    else:
        assert (s["violation_rate"], s["mean_risk"], s["std_coverage"]) == (None, None, None)


def test_violation_summary_refuses_a_seed_twice():
    rows = [SeedOutcome(4, 0.5, 0.1, 0.05), SeedOutcome(4, 0.6, 0.1, 0.06)]
    with pytest.raises(InputError) as err:
        violation_summary(rows, 0.1, "crc")
    assert str(err.value) == "seed 4 appears twice in one (method, alpha, crc) group"
    with pytest.raises(UsageError, match=r"^--violation-margin must be >= 0"):
        violation_summary([], 0.1, "crc", -0.1)


def test_mean_std_is_population():
    assert mean_std([1.0, 2.0, 4.0]) == pytest.approx((7 / 3, math.sqrt(14 / 9)), rel=1e-15)
    assert mean_std([]) == (None, None)


# the working points the former numpy code (np.cumsum in stable confidence order) gave, kept
# when the points moved onto the SQL macros evaluate reads: (confidences, losses, abstained,
# thresholds, k_cum, loss_cum before, loss_cum now)
FORMER_POINTS = [
    (  # 0/1 losses, a tie, an abstention: identical
        [0.5, 0.9, 0.5, 0.3, 0.9],
        [1.0, 0.0, 0.0, 1.0, 1.0],
        [False, False, True, False, False],
        [0.9, 0.5, 0.3],
        [2, 3, 4],
        [1.0, 2.0, 3.0],
        [1.0, 2.0, 3.0],
    ),
    (  # continuous losses: the running sum now rounds once (the cumsum rounded at every step)
        [0.1, 0.2, 0.3, 0.3, 0.7, 0.9],
        [0.1, 0.2, 0.3, 0.1, 0.2, 0.3],
        [False] * 6,
        [0.9, 0.7, 0.3, 0.2, 0.1],
        [1, 2, 4, 5, 6],
        [0.3, 0.5, 0.9, 1.1, 1.2000000000000002],
        [0.3, 0.5, 0.9, 1.1, 1.2],
    ),
    (
        [0.6, 0.9, 0.8, 0.2, 0.3, 0.9, 0.0, 0.8, 0.8, 0.5, 0.3, 0.3],
        [0.255, 0.445, 0.505, 0.553, 0.996, 0.793, 0.622, 0.989, 0.215, 0.16, 0.613, 0.044],
        [True, False, False, False, False, False, False, False, True, True, False, False],
        [0.9, 0.8, 0.3, 0.2, 0.0],
        [2, 4, 7, 8, 9],
        [1.238, 2.7319999999999998, 4.384999999999999, 4.937999999999999, 5.559999999999999],
        [1.238, 2.732, 4.385, 4.938, 5.5600000000000005],
    ),
]


@pytest.mark.parametrize(("conf", "loss", "abst", "thresholds", "k_cum", "before", "now"), FORMER_POINTS)
def test_working_points_against_the_former_numpy_values(
    con, conf, loss, abst, thresholds, k_cum, before, now
):
    pts = working_points(con, np.array(conf), np.array(loss), np.array(abst))
    assert (pts.threshold.tolist(), pts.k_cum.tolist(), pts.n_total) == (thresholds, k_cum, len(conf))
    assert pts.loss_cum.tolist() == now
    # now: each running sum is the exact sum of the accepted losses' doubles, rounded once
    kept = [(c, Fraction(x)) for c, x, a in zip(conf, loss, abst, strict=True) if not a]
    assert now == [float(sum((x for c, x in kept if c >= t), Fraction(0))) for t in thresholds]
    # and the former values differ from it in the last bits only
    assert all(abs(a - b) <= 2 * math.ulp(b) for a, b in zip(before, now, strict=True))


@settings(max_examples=examples(40), deadline=None)
@given(sets=st.lists(samples(), min_size=1, max_size=3))
def test_working_points_of_several_sets_are_each_sets_own(con, sets):
    """One query for several sets (an experiment's cal split and its halves) gives each set the
    points it has alone, with its own N."""
    together = working_points_of(con, sets)
    assert len(together) == len(sets)
    for got, data in zip(together, sets, strict=True):
        alone = working_points(con, *data)
        assert (got.threshold.tolist(), got.k_cum.tolist(), got.loss_cum.tolist(), got.n_total) == (
            alone.threshold.tolist(),
            alone.k_cum.tolist(),
            alone.loss_cum.tolist(),
            alone.n_total,
        )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        # both reached the command's end: an internal error (exit 70), numpy's array size and
        # the JSON writer's "Out of range float values"
        ({"candidates": 10**20}, f"--candidates must be a positive integer up to 1,000,000, got {10**20}"),
        ({"candidates": 1_000_001}, "--candidates must be a positive integer up to 1,000,000, got 1000001"),
        ({"violation_margin": math.inf}, "--violation-margin must be >= 0 and finite, got inf"),
        ({"violation_margin": math.nan}, "--violation-margin must be >= 0 and finite, got nan"),
    ],
)
def test_risk_control_options_refused_before_anything_runs(options, message):
    from riskcov.riskcontrol import compare, suite

    with pytest.raises(UsageError) as raised:
        suite.Options(inputs=["run"], **options).check()
    assert str(raised.value) == message
    if "candidates" in options:  # compare certifies with the same options
        with pytest.raises(UsageError) as raised:
            compare.Options(inputs=["run"], **options).check()
        assert str(raised.value) == message
