"""OOD acceptance at a fixed ID coverage (the macro rc_ood_at_id_coverage), DAR at thresholds
(rc_ood_acceptance) and AUROC
(docs/risk-control.md)
against direct oracles: numpy.quantile (linear) is the threshold's definition, acceptance is
counted sample by sample."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from riskcov.errors import InputError, UsageError
from riskcov.riskcontrol.ood import (
    DEFAULT_TARGETS,
    auroc,
    dar_at_thresholds,
    fpr_at_95_tpr,
    ood_at_id_coverage,
)

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"
TARGETS = [0.0, 0.05, 0.3, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0]


@pytest.fixture(scope="module")
def con():
    connection = duckdb.connect()
    for name in ("rc_auroc", "rc_ood_acceptance", "rc_ood_at_id_coverage"):
        connection.execute((SQL_DIR / f"{name}.sql").read_text())
    yield connection
    connection.close()


@st.composite
def domain(draw, min_size=1):
    """(confidences, abstained) with ties on a 1/8 grid and ~20% abstentions.

    An abstention's confidence is NaN or a leftover real value: neither may count.
    """
    n = draw(st.integers(min_size, 25))
    conf = np.array(draw(st.lists(st.integers(0, 8), min_size=n, max_size=n)), float) / 8
    abst = np.array(draw(st.lists(st.integers(0, 4).map(lambda i: i == 0), min_size=n, max_size=n)), bool)
    blank = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    return np.where(abst & blank, np.nan, conf), abst


@st.composite
def real_domain(draw):
    """(confidences, abstained) of arbitrary doubles, some tied, where numpy's quantile
    arithmetic (not only the order) decides the threshold's last bit."""
    value = st.one_of(
        st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.7, 1.0]),
        st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, allow_subnormal=False),
    )
    rows = draw(st.lists(st.tuples(value, st.booleans()), min_size=1, max_size=25))
    abst = np.array([a for _, a in rows], bool)
    return np.where(abst, np.nan, np.array([c for c, _ in rows], float)), abst


def accept(conf, abst, tau):
    """Share of all samples accepted: abstained never, the rest when confidence >= tau."""
    hits = sum(1 for c, a in zip(conf, abst, strict=True) if tau is not None and not a and c >= tau)
    return float(Fraction(hits, len(conf)))


def expected_rows(ident, ood, targets):
    """The rows by definition: tau = numpy.quantile(non-abstained ID confidences, 1 - c)."""
    kept = ident[0][~ident[1]]
    out = []
    for c in targets:
        tau = float(np.quantile(kept, 1 - c)) if kept.size else None
        id_rate, ood_rate = accept(*ident, tau), accept(*ood, tau)
        out.append(
            {
                "id_coverage_target": c,
                "threshold": tau,
                "id_coverage_actual": id_rate,
                "ood_accept_rate": ood_rate,
                "dar": ood_rate,
                "safety_ratio": id_rate / (ood_rate + 1e-8),
            }
        )
    return out


@settings(max_examples=examples(100), deadline=None)
@given(ident=domain(), ood=domain(), targets=st.lists(st.sampled_from(TARGETS), min_size=1, max_size=4))
def test_ood_at_id_coverage_follows_spec(con, ident, ood, targets):
    rows = ood_at_id_coverage(con, *ident, *ood, targets)
    assert rows == expected_rows(ident, ood, targets)


@settings(max_examples=examples(100), deadline=None)
@given(ident=real_domain(), ood=real_domain(), targets=st.lists(st.floats(0, 1), min_size=1, max_size=4))
def test_threshold_is_numpy_quantile_to_the_last_bit(con, ident, ood, targets):
    assert ood_at_id_coverage(con, *ident, *ood, targets) == expected_rows(ident, ood, targets)


def test_default_targets_are_the_macros():
    assert DEFAULT_TARGETS == (0.6, 0.7, 0.8, 0.9)
    with duckdb.connect() as c:
        c.execute((SQL_DIR / "rc_ood_default_targets.sql").read_text())
        assert tuple(c.execute("SELECT rc_ood_default_targets()").fetchall()[0][0]) == DEFAULT_TARGETS


def test_quantile_cont_is_not_numpy_linear(con):
    """Why the macro does numpy's arithmetic: quantile_cont differs from it in the last bit."""
    x = [0.1, 0.2, 0.7]
    ((got,),) = con.execute(
        "SELECT quantile_cont(x, 1.0::DOUBLE - 0.7::DOUBLE) FROM unnest(?) AS t(x)", [x]
    ).fetchall()
    assert float(np.quantile(x, 1 - 0.7)) == 0.16000000000000003
    assert got == 0.16
    (row,) = ood_at_id_coverage(
        con, np.array(x), np.zeros(3, bool), np.array([0.16]), np.zeros(1, bool), [0.7]
    )
    assert row["threshold"] == 0.16000000000000003 and row["ood_accept_rate"] == 0.0


def test_abstentions_count_in_the_denominators_by_hand(con):
    id_conf = np.array([0.9, 0.8, 0.7, 0.6, np.nan])
    id_abst = np.array([False, False, False, False, True])
    ood_conf = np.array([0.8, 0.3, np.nan, 0.76])
    ood_abst = np.array([False, False, True, False])
    (row,) = ood_at_id_coverage(con, id_conf, id_abst, ood_conf, ood_abst, [0.5])
    # tau = median of the four confidences = 0.75; 2 of 5 ID and 2 of 4 OOD reach it
    assert row["threshold"] == pytest.approx(0.75, abs=1e-15)
    assert (row["id_coverage_actual"], row["ood_accept_rate"], row["dar"]) == (0.4, 0.5, 0.5)
    assert row["safety_ratio"] == 0.4 / (0.5 + 1e-8)


def test_every_id_sample_abstained_accepts_nothing(con):
    (row,) = ood_at_id_coverage(
        con, np.array([np.nan]), np.array([True]), np.array([0.5]), np.array([False]), [0.8]
    )
    assert row == {
        "id_coverage_target": 0.8,
        "threshold": None,
        "id_coverage_actual": 0.0,
        "ood_accept_rate": 0.0,
        "dar": 0.0,
        "safety_ratio": 0.0,
    }


@settings(max_examples=examples(80), deadline=None)
@given(ident=domain(), ood=domain())
def test_fpr_at_95_tpr_is_ood_acceptance_at_95_percent(con, ident, ood):
    kept = ident[0][~ident[1]]
    # the documented 1 - c in doubles (0.05000000000000004), as for every other target
    tau = float(np.quantile(kept, 1 - 0.95)) if kept.size else None
    assert fpr_at_95_tpr(con, *ident, *ood) == accept(*ood, tau)


@settings(max_examples=examples(80), deadline=None)
@given(
    ident=domain(),
    ood=domain(),
    thresholds=st.lists(st.integers(-1, 9).map(lambda i: i / 8), min_size=1, max_size=4),
)
def test_dar_at_thresholds_follows_spec(con, ident, ood, thresholds):
    rows = dar_at_thresholds(con, *ident, *ood, thresholds)
    assert rows == [
        {
            "threshold": t,
            "id_accept_rate": accept(*ident, t),
            "ood_accept_rate": accept(*ood, t),
            "dar": accept(*ood, t),
        }
        for t in thresholds
    ]


def test_dar_at_thresholds_gives_the_former_numpy_values(con):
    """What the former numpy code gave (an abstention, a tie at the threshold, thresholds out of
    order and below every confidence), kept when DAR moved onto the macro rc_ood_acceptance."""
    rows = dar_at_thresholds(
        con,
        np.array([0.2, 0.8, 0.5, 0.5]),
        np.array([False, False, True, False]),
        np.array([0.6, 0.1, 0.5]),
        np.zeros(3, bool),
        [0.5, 0.0, 0.95, -1.0],
    )
    assert rows == [
        {
            "threshold": 0.5,
            "id_accept_rate": 0.5,
            "ood_accept_rate": 0.6666666666666666,
            "dar": 0.6666666666666666,
        },
        {"threshold": 0.0, "id_accept_rate": 0.75, "ood_accept_rate": 1.0, "dar": 1.0},
        {"threshold": 0.95, "id_accept_rate": 0.0, "ood_accept_rate": 0.0, "dar": 0.0},
        {"threshold": -1.0, "id_accept_rate": 0.75, "ood_accept_rate": 1.0, "dar": 1.0},
    ]
    assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchall() == [(0,)]


def test_ood_errors_name_the_offender(con):
    one, no = np.array([0.5]), np.array([False])
    with pytest.raises(UsageError) as err:
        ood_at_id_coverage(con, one, no, one, no, [1.2])
    assert str(err.value) == "ID coverage target 1.2 must lie in [0, 1]"
    with pytest.raises(InputError) as err:
        ood_at_id_coverage(con, one, no, np.array([]), np.array([], bool))
    assert str(err.value) == "the ood domain has no samples; OOD metrics need both id and ood"
    with pytest.raises(InputError) as err:
        dar_at_thresholds(con, np.array([0.5, np.nan]), np.array([False, False]), one, no, [0.5])
    assert str(err.value) == "id sample 1 is not abstained but its confidence is nan"
    with pytest.raises(UsageError, match=r"^DAR threshold nan must be a finite number"):
        dar_at_thresholds(con, one, no, one, no, [float("nan")])
    (row,) = ood_at_id_coverage(con, np.array([0.0, 1.0]), np.array([False, False]), one, no, [0.25])
    assert row["threshold"] == 0.75


def pairwise_auroc(ident, ood):
    """P(ID scores above OOD), ties ½, an abstention below every score (ties among them)."""

    def key(c, a):
        return -np.inf if a else c

    ids = [key(c, a) for c, a in zip(*ident, strict=True)]
    oods = [key(c, a) for c, a in zip(*ood, strict=True)]
    if not ids or not oods:
        return None
    wins = sum(Fraction(1) if i > o else Fraction(1, 2) if i == o else Fraction(0) for i in ids for o in oods)
    return float(wins / (len(ids) * len(oods)))


@settings(max_examples=examples(100), deadline=None)
@given(ident=domain(min_size=0), ood=domain(min_size=0))
def test_auroc_macro_matches_pairwise_counting(con, ident, ood):
    assert auroc(con, *ident, *ood) == pairwise_auroc(ident, ood)


def test_auroc_by_hand_and_cleans_up(con):
    # pairs: 0.9 beats both, 0.5 ties 0.5 and beats 0.1, the abstention loses both: 3.5 / 6
    got = auroc(
        con,
        np.array([0.9, 0.5, np.nan]),
        np.array([False, False, True]),
        np.array([0.5, 0.1]),
        np.array([False, False]),
    )
    assert got == 3.5 / 6
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchall() == [(0,)]


def test_coverage_rows_leave_no_table_behind(con):
    ood_at_id_coverage(con, np.array([0.5]), np.array([False]), np.array([0.4]), np.array([False]), [0.5])
    assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchall() == [(0,)]
