"""OOD acceptance at a fixed ID coverage, DAR and AUROC (docs/risk-control.md) against direct oracles."""

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
from riskcov.ood import auroc, dar_at_thresholds, fpr_at_95_tpr, id_threshold, ood_at_id_coverage

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"
TARGETS = [0.0, 0.05, 0.3, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0]


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


def accept(conf, abst, tau):
    """Share of all samples accepted: abstained never, the rest when confidence >= tau."""
    hits = sum(1 for c, a in zip(conf, abst, strict=True) if tau is not None and not a and c >= tau)
    return float(Fraction(hits, len(conf)))


@settings(max_examples=examples(100), deadline=None)
@given(ident=domain(), ood=domain(), targets=st.lists(st.sampled_from(TARGETS), min_size=1, max_size=4))
def test_ood_at_id_coverage_follows_spec(ident, ood, targets):
    rows = ood_at_id_coverage(*ident, *ood, targets)
    assert [r["id_coverage_target"] for r in rows] == targets
    kept = ident[0][~ident[1]]
    for row, c in zip(rows, targets, strict=True):
        tau = float(np.quantile(kept, 1 - c)) if kept.size else None
        id_rate, ood_rate = accept(*ident, tau), accept(*ood, tau)
        assert row == {
            "id_coverage_target": c,
            "threshold": tau,
            "id_coverage_actual": id_rate,
            "ood_accept_rate": ood_rate,
            "dar": ood_rate,
            "safety_ratio": id_rate / (ood_rate + 1e-8),
        }


def test_abstentions_count_in_the_denominators_by_hand():
    id_conf = np.array([0.9, 0.8, 0.7, 0.6, np.nan])
    id_abst = np.array([False, False, False, False, True])
    ood_conf = np.array([0.8, 0.3, np.nan, 0.76])
    ood_abst = np.array([False, False, True, False])
    (row,) = ood_at_id_coverage(id_conf, id_abst, ood_conf, ood_abst, [0.5])
    # tau = median of the four confidences = 0.75; 2 of 5 ID and 2 of 4 OOD reach it
    assert row["threshold"] == pytest.approx(0.75, abs=1e-15)
    assert (row["id_coverage_actual"], row["ood_accept_rate"], row["dar"]) == (0.4, 0.5, 0.5)
    assert row["safety_ratio"] == 0.4 / (0.5 + 1e-8)


def test_every_id_sample_abstained_accepts_nothing():
    (row,) = ood_at_id_coverage(
        np.array([np.nan]), np.array([True]), np.array([0.5]), np.array([False]), [0.8]
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
def test_fpr_at_95_tpr_is_ood_acceptance_at_95_percent(ident, ood):
    kept = ident[0][~ident[1]]
    # the documented 1 - c in doubles (0.05000000000000004), as for every other target
    tau = float(np.quantile(kept, 1 - 0.95)) if kept.size else None
    assert fpr_at_95_tpr(*ident, *ood) == accept(*ood, tau)


@settings(max_examples=examples(80), deadline=None)
@given(
    ident=domain(),
    ood=domain(),
    thresholds=st.lists(st.integers(-1, 9).map(lambda i: i / 8), min_size=1, max_size=4),
)
def test_dar_at_thresholds_follows_spec(ident, ood, thresholds):
    rows = dar_at_thresholds(*ident, *ood, thresholds)
    assert rows == [
        {
            "threshold": t,
            "id_accept_rate": accept(*ident, t),
            "ood_accept_rate": accept(*ood, t),
            "dar": accept(*ood, t),
        }
        for t in thresholds
    ]


def test_ood_errors_name_the_offender():
    one, no = np.array([0.5]), np.array([False])
    with pytest.raises(UsageError) as err:
        ood_at_id_coverage(one, no, one, no, [1.2])
    assert str(err.value) == "ID coverage target 1.2 must lie in [0, 1]"
    with pytest.raises(InputError) as err:
        ood_at_id_coverage(one, no, np.array([]), np.array([], bool))
    assert str(err.value) == "the ood domain has no samples; OOD metrics need both id and ood"
    with pytest.raises(InputError) as err:
        dar_at_thresholds(np.array([0.5, np.nan]), np.array([False, False]), one, no, [0.5])
    assert str(err.value) == "id sample 1 is not abstained but its confidence is nan"
    with pytest.raises(UsageError, match=r"^DAR threshold nan must be a finite number"):
        dar_at_thresholds(one, no, one, no, [float("nan")])
    assert id_threshold(np.array([0.0, 1.0]), np.array([False, False]), 0.25) == 0.75


@pytest.fixture(scope="module")
def con():
    connection = duckdb.connect()
    connection.execute((SQL_DIR / "rc_auroc.sql").read_text())
    yield connection
    connection.close()


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
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone() == (0,)
