"""Calibrators as SQL (docs/calibration.md), run by DuckDB, against hand-computed confidences; and the
calibration metrics through the warehouse's macros."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from pathlib import Path

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from riskcov.errors import UsageError
from riskcov.scoring.calibration.artifact import Calibrator, Isotonic, Linear, Temperature
from riskcov.scoring.calibration.fit import fit_isotonic, fit_logistic
from riskcov.scoring.calibration.metrics import auroc, before_after, calibration_metrics
from riskcov.scoring.calibration.to_sql import evaluate, feature_sql, signal_inputs, to_sql, value_sql

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    c = duckdb.connect()
    for name in ("prob_calibration.sql", "rc_auroc.sql"):
        c.execute((REPO / "sql" / name).read_text())
    yield c
    c.close()


def run(
    con: duckdb.DuckDBPyConnection, cal: Calibrator, rows: Sequence[Sequence[float | None]]
) -> list[float | None]:
    """The calibrator's SQL over a VALUES table with one column per feature, in row order."""
    names = [f"f{j}" for j in range(len(rows[0]))]
    values = ", ".join(
        "(" + ", ".join([str(i)] + ["NULL" if v is None else f"CAST({v!r} AS DOUBLE)" for v in row]) + ")"
        for i, row in enumerate(rows)
    )
    feats = cal.features or ("x",)
    inputs = {f: f"t.{n}" for f, n in zip(feats, names, strict=True)}
    expr = to_sql(cal, inputs) if cal.features else value_sql(cal, "t.f0")
    sql = f"SELECT {expr} FROM (VALUES {values}) AS t(i, {', '.join(names)}) ORDER BY t.i"
    return [r[0] for r in con.execute(sql).fetchall()]


def sig(z: float) -> float:
    return 1 / (1 + math.exp(-z))


# ---- hand-written calibrators -----------------------------------------------------------------


def test_temperature(con: duckdb.DuckDBPyConnection) -> None:
    half = Calibrator("temperature_scaling", (), "correctness", Temperature(0.5))
    # sigmoid(2 ln 3) = 9/10, sigmoid(2 ln 1/3) = 1/10
    assert run(con, half, [[0.75], [0.25], [0.5]]) == pytest.approx([0.9, 0.1, 0.5], rel=1e-12)
    two = Calibrator("temperature_scaling", ("token_msp",), "correctness", Temperature(2.0))
    r = math.sqrt(999999)  # logit(1 - 1e-6) = ln 999999, halved by T = 2
    assert run(con, two, [[1.0], [1.7], [0.0], [0.75]]) == pytest.approx(
        [r / (1 + r), r / (1 + r), 1 / (1 + r), math.sqrt(3) / (1 + math.sqrt(3))], rel=1e-12
    )


def test_logistic_sigmoid(con: duckdb.DuckDBPyConnection) -> None:
    cal = Calibrator(
        "logistic",
        ("a", "b"),
        "correctness",
        Linear((2.0, -1.0), math.log(3), "sigmoid", (1.0, 2.0), (2.0, 4.0)),
    )
    # z = ln 3 + 2 (a - 1) / 2 - (b - 2) / 4
    got = run(con, cal, [[1.0, 2.0], [3.0, 6.0], [-1.0, 2.0]])
    assert got == pytest.approx([0.75, 3 * math.e / (1 + 3 * math.e), 3 / (3 + math.e**2)], rel=1e-12)


def test_identity_link_is_clipped(con: duckdb.DuckDBPyConnection) -> None:
    cal = Calibrator(
        "logistic", ("a", "b"), "loss", Linear((0.5, 0.25), 0.5, "identity", (1.0, 0.0), (2.0, 1.0))
    )
    # 0.5 + 0.5 (a - 1) / 2 + 0.25 b: 0.5, 2.5 -> 1, -1.5 -> 0, 0.875
    got = run(con, cal, [[3.0, -2.0], [5.0, 4.0], [-3.0, -4.0], [2.0, 0.5]])
    assert got == [0.5, 1.0, 0.0, 0.875]


def test_platt_as_one_value(con: duckdb.DuckDBPyConnection) -> None:
    cal = Calibrator("platt", ("token_msp",), "correctness", Linear((1.0,), 0.0, "sigmoid", (0.5,), (0.25,)))
    sql = f"SELECT {value_sql(cal, 'CAST(0.5 AS DOUBLE) + CAST(0.25 AS DOUBLE) * ln(3)')}"
    assert con.execute(sql).fetchall()[0][0] == pytest.approx(0.75, rel=1e-12)


def test_isotonic(con: duckdb.DuckDBPyConnection) -> None:
    cal = Calibrator("isotonic", ("a",), "correctness", Isotonic((0.2, 0.4, 0.8), (0.1, 0.5, 0.7)))
    got = run(con, cal, [[0.0], [0.2], [0.3], [0.4], [0.6], [0.8], [1.0], [None]])
    assert got[:-1] == pytest.approx([0.1, 0.1, 0.3, 0.5, 0.6, 0.7, 0.7], rel=1e-12)
    assert got[-1] is None
    wide = Calibrator("isotonic", ("a",), "correctness", Isotonic((0.0, 1.0), (-0.5, 1.5)))
    assert run(con, wide, [[0.1], [0.25], [0.5], [0.9]]) == pytest.approx([0.0, 0.0, 0.5, 1.0])
    one = Calibrator("isotonic", ("a",), "correctness", Isotonic((0.5,), (0.3,)))
    assert run(con, one, [[0.0], [0.9]]) == [0.3, 0.3]
    # knots a subnormal apart: the slope would overflow, the fraction of the gap does not
    tiny = Calibrator("isotonic", ("a",), "correctness", Isotonic((0.0, 5e-324), (0.0, 1.0)))
    assert run(con, tiny, [[0.0], [5e-324], [-1.0]]) == [0.0, 1.0, 0.0]


@pytest.mark.parametrize(
    "cal",
    [
        Calibrator("temperature_scaling", ("a",), "correctness", Temperature(2.0)),
        Calibrator("platt", ("a",), "loss", Linear((1.0,), 0.5, "identity", (0.0,), (1.0,))),
        Calibrator("platt", ("a",), "correctness", Linear((1.0,), 0.5, "sigmoid", (0.0,), (1.0,))),
        Calibrator("isotonic", ("a",), "correctness", Isotonic((0.0, 1.0), (0.2, 0.4))),
    ],
)
def test_null_input_stays_null(con: duckdb.DuckDBPyConnection, cal: Calibrator) -> None:
    # least/greatest would turn a NULL into a clip bound
    assert run(con, cal, [[None], [0.0]])[0] is None


knots = (
    st.lists(st.floats(-1, 2), min_size=1, max_size=6, unique=True)
    .map(sorted)
    .filter(lambda xs: all(b - a >= 1e-9 for a, b in itertools.pairwise(xs)))
)


@settings(max_examples=examples(100), deadline=None)
@given(knots, st.data())
def test_isotonic_is_numpy_interp(
    con: duckdb.DuckDBPyConnection, xs: list[float], data: st.DataObject
) -> None:
    ys = data.draw(st.lists(st.floats(-0.5, 1.5), min_size=len(xs), max_size=len(xs)))
    points = data.draw(st.lists(st.one_of(st.sampled_from(xs), st.floats(-1.5, 2.5)), min_size=1, max_size=8))
    cal = Calibrator("isotonic", ("a",), "correctness", Isotonic(tuple(xs), tuple(ys)))
    got = run(con, cal, [[p] for p in points])

    def interp(p: float) -> float:  # clamp at the ends, else the segment x_k <= p < x_k+1
        if p <= xs[0]:
            return ys[0]
        for (x0, y0), (x1, y1) in zip(
            zip(xs, ys, strict=True), zip(xs[1:], ys[1:], strict=True), strict=False
        ):
            if p < x1:
                return y0 + (p - x0) * (y1 - y0) / (x1 - x0)
        return ys[-1]

    assert got == pytest.approx([min(max(interp(p), 0.0), 1.0) for p in points], rel=1e-12, abs=1e-15)
    # and bit for bit what the reference evaluator computes (numpy.interp, then clip)
    assert got == np.clip(np.interp(points, xs, ys), 0.0, 1.0).tolist()


@settings(max_examples=examples(100), deadline=None)
@given(st.floats(0.05, 10), st.lists(st.floats(0, 1), min_size=1, max_size=8))
def test_temperature_matches_the_formula(con: duckdb.DuckDBPyConnection, t: float, ps: list[float]) -> None:
    cal = Calibrator("temperature_scaling", (), "correctness", Temperature(t))
    clip = [min(max(p, 1e-6), 1 - 1e-6) for p in ps]
    expected = [sig(math.log(c / (1 - c)) / t) for c in clip]
    assert run(con, cal, [[p] for p in ps]) == pytest.approx(expected, rel=1e-12)


# ---- features from item_signals --------------------------------------------------------------


@pytest.fixture
def signals() -> Iterator[duckdb.DuckDBPyConnection]:
    c = duckdb.connect()
    c.execute((REPO / "migrations" / "0001_core.sql").read_text())
    c.execute("""
        INSERT INTO item_signals (experiment_id, participant_id, item_index, signal_keys,
            llm_evidence_count, retrieval_similarity_mean, verbalized_confidence, token_msp,
            evidence_source, inference_used, extra_signals)
        VALUES (1, 300, 0, [], 2, 0.8, 5, 0.9, 'llm', NULL, '{"my_score": 1.5, "my_confidence": null}'),
               (1, 300, 1, [], NULL, NULL, NULL, NULL, NULL, NULL, NULL),
               (1, 301, 2, [], 7, 0.2, 2, 0.1, NULL, true, '{"my_score": "high"}')""")
    yield c
    c.close()


def features(c: duckdb.DuckDBPyConnection, expr: str, where: str = "TRUE") -> list[float]:
    order = "s.experiment_id, s.participant_id, s.item_index"
    sql = f"SELECT {expr} FROM item_signals AS s WHERE {where} ORDER BY {order}"
    return [r[0] for r in c.execute(sql).fetchall()]


@pytest.mark.parametrize(
    ("name", "normalise", "expected"),
    [
        ("llm_evidence_count", False, [2.0, 0.0, 7.0]),
        ("retrieval_similarity_mean", False, [0.8, 0.0, 0.2]),
        ("verbalized_confidence", False, [5.0, 3.0, 2.0]),  # raw, null -> 3.0
        ("verbalized_confidence", True, [1.0, 0.5, 0.25]),  # as the `verbalized` CSF
        ("token_msp", True, [0.9, 0.0, 0.1]),  # only verbalized_confidence is normalised
        ("my_confidence", False, [3.0, 3.0, 3.0]),  # an unknown key, JSON null or absent: its default
    ],
)
def test_feature_values(
    signals: duckdb.DuckDBPyConnection, name: str, normalise: bool, expected: list[float]
) -> None:
    assert features(signals, feature_sql(name, normalise=normalise)) == expected


def test_unknown_numeric_key(signals: duckdb.DuckDBPyConnection) -> None:
    assert features(signals, feature_sql("my_score"), "s.participant_id = 300") == [1.5, 0.0]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "my_score",
            'participant 301 item 2: item_signals.my_score = "high" is not a number (a calibrator feature)',
        ),
        (
            "evidence_source",
            'participant 300 item 0: item_signals.evidence_source = "llm" is not a number '
            "(a calibrator feature)",
        ),
        (
            "inference_used",
            "participant 301 item 2: item_signals.inference_used = true is not a number "
            "(a calibrator feature)",
        ),
    ],
)
def test_non_numeric_features_fail_naming_the_item(
    signals: duckdb.DuckDBPyConnection, name: str, message: str
) -> None:
    with pytest.raises(duckdb.InvalidInputException) as exc:
        features(signals, feature_sql(name))
    assert str(exc.value) == f"Invalid Input Error: {message}"


def test_calibrated_over_item_signals(signals: duckdb.DuckDBPyConnection) -> None:
    cal = Calibrator(
        "logistic",
        ("llm_evidence_count", "retrieval_similarity_mean"),
        "correctness",
        Linear((1.0, 2.0), 0.0, "sigmoid", (2.0, 0.5), (1.0, 0.5)),
    )
    # z = (llm - 2) + 2 (sim - 0.5) / 0.5
    got = features(signals, to_sql(cal, signal_inputs(cal)))
    assert got == pytest.approx([sig(0 + 1.2), sig(-2 - 2), sig(5 - 1.2)], rel=1e-12)
    temp = Calibrator("temperature_scaling", ("verbalized_confidence",), "correctness", Temperature(0.5))
    # v = 1 (clipped to 1 - 1e-6), 0.5 (null), 0.25
    r = 999999.0**2
    assert features(signals, to_sql(temp, signal_inputs(temp))) == pytest.approx([r / (1 + r), 0.5, 0.1])


def test_refusals() -> None:
    two = Calibrator(
        "logistic",
        ("a", "b"),
        "correctness",
        Linear((1.0, 1.0), 0.0, "sigmoid", (0.0, 0.0), (1.0, 1.0)),
        "cal.json",
    )
    with pytest.raises(UsageError) as exc:
        value_sql(two, "x")
    assert str(exc.value) == (
        "cal.json: a logistic calibrator of 2 features cannot calibrate a single confidence value"
    )
    bare = Calibrator("temperature_scaling", (), "correctness", Temperature(1.0), "t.json")
    with pytest.raises(UsageError) as exc:
        to_sql(bare, {})
    assert str(exc.value) == (
        "t.json: the calibrator names no features; use it as verbalized_calibrated or calibrated:<csf>"
    )
    with pytest.raises(ValueError, match=r"^no SQL input for feature b$"):
        to_sql(two, {"a": "1.0"})
    with pytest.raises(ValueError, match="is not a signal name"):
        feature_sql("x'; DROP TABLE items; --")


def test_evaluate_fitted(con: duckdb.DuckDBPyConnection) -> None:
    iso = Calibrator(
        "isotonic", ("a",), "correctness", fit_isotonic([1.0, 1.0, 2.0, 3.0], [1.0, 0.0, 0.0, 1.0])
    )
    assert evaluate(con, iso, [[1.0], [2.0], [3.0], [2.5]]).tolist() == pytest.approx(
        [1 / 3, 1 / 3, 1.0, 2 / 3]
    )
    x = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    m = fit_logistic(x, [0.0, 1.0, 0.0, 1.0])
    z = (x - np.array(m.mean)) / np.array(m.std) @ np.array(m.coefficients) + m.intercept
    got = evaluate(con, Calibrator("logistic", ("a", "b"), "correctness", m), x)
    assert got.tolist() == pytest.approx([sig(v) for v in z], rel=1e-12)
    bare = Calibrator("temperature_scaling", (), "correctness", Temperature(0.5))
    assert evaluate(con, bare, [[0.75]]).tolist() == pytest.approx([0.9], rel=1e-12)


# ---- metrics ---------------------------------------------------------------------------------


def test_calibration_metrics(con: duckdb.DuckDBPyConnection) -> None:
    m = calibration_metrics(con, [0.1, 0.4, 0.4, 0.9], [0, 1, 0, 1])
    assert m == {
        "n": 4,
        # bins [0.1, 0.2), [0.4, 0.5), [0.9, 1]: |0 - 0.1|/4 + 2 |0.5 - 0.4|/4 + |1 - 0.9|/4
        "ece": pytest.approx(0.1),
        "nll": pytest.approx(-(2 * math.log(0.9) + math.log(0.4) + math.log(0.6)) / 4),
        "brier": pytest.approx((0.01 + 0.36 + 0.16 + 0.01) / 4),
        "auroc": 0.875,  # 3.5 of 4 pairs, the tie at 0.4 counting one half
        "n_bins": 10,
    }
    assert calibration_metrics(con, [0.2, 0.7], [1, 1])["auroc"] is None
    assert calibration_metrics(con, [], []) == {
        "n": 0,
        "ece": None,
        "nll": None,
        "brier": None,
        "auroc": None,
        "n_bins": 10,
    }
    assert calibration_metrics(con, [0.25, 0.75], [0, 1], n_bins=2)["ece"] == 0.25


def test_before_after(con: duckdb.DuckDBPyConnection) -> None:
    m = before_after(con, [0.1, 0.4, 0.4, 0.9], [0.25, 0.75, 0.25, 0.75], [0, 1, 0, 1])
    assert m == {
        "n": 4,
        "n_bins": 10,
        "ece_before": pytest.approx(0.1),
        "ece_after": 0.25,
        "nll_before": pytest.approx(-(2 * math.log(0.9) + math.log(0.4) + math.log(0.6)) / 4),
        "nll_after": pytest.approx(-math.log(0.75)),
        "brier_before": pytest.approx(0.135),
        "brier_after": 0.0625,
        "auroc_before": 0.875,
        "auroc_after": 1.0,
    }
    counts = before_after(con, [3, 0, 1, 1], [0.9, 0.1, 0.5, 0.5], [1, 0, 0, 1])
    # evidence counts are no probabilities: only their ranking is scored
    assert (counts["ece_before"], counts["nll_before"], counts["brier_before"]) == (None, None, None)
    assert counts["auroc_before"] == 0.875
    assert auroc(con, [3, 0, 1, 1], [1, 0, 0, 1]) == 0.875


@pytest.mark.parametrize(
    ("prob", "correct", "message"),
    [
        ([0.5, 1.2], [0, 1], "prob must lie in [0, 1]"),
        ([0.5, 0.2], [0, 2], "correct must be 0 or 1"),
        ([0.5], [0, 1], "prob (1,) and correct (2,) must be vectors of one length"),
    ],
)
def test_metrics_refuse(
    con: duckdb.DuckDBPyConnection, prob: list[float], correct: list[int], message: str
) -> None:
    with pytest.raises(ValueError) as exc:
        calibration_metrics(con, prob, correct)
    assert str(exc.value) == message
