"""v_ood_at_id_coverage: every id experiment paired with the ood experiments of its method, seed
and split, by every confidence column both have, at the default targets, by the macro
rc_ood_at_id_coverage; checked against the definition worked out in the test."""

from __future__ import annotations

import shutil
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import pytest

from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.ingest import ingest_file

COLUMNS = (
    "method, seed, split, csf, id_coverage_target, threshold, id_coverage_actual, ood_accept_rate, "
    "dar, safety_ratio"
)
# (method, seed, split, domain) -> rows of (confidence, abstained); score column b = 1 - confidence
SAMPLES = {
    ("m", 1, "test", "id"): [(0.1, False), (0.7, False), (0.2, False), (0.9, True), (0.4, False)],
    ("m", 1, "test", "ood"): [(0.3, False), (0.05, False), (0.8, True)],
    ("m", 2, "test", "id"): [(0.5, True), (0.6, True)],  # every ID sample abstained: no rows
    ("m", 2, "test", "ood"): [(0.5, False)],
    ("m", 3, "cal", "id"): [(0.25, False), (0.25, False), (0.5, False)],
    ("m", 3, "test", "ood"): [(0.5, False)],  # another split: no pair
    ("n", 1, "test", "id"): [(0.1, False), (0.2, False), (0.7, False)],
    ("n", 1, "test", "ood"): [(0.16000000000000003, False), (0.16, False)],
}


def _csv(path: Path) -> Path:
    lines = ["method,seed,split,domain,sample_id,confidence,confidence_b,correct,abstained"]
    for (method, seed, split, dom), rows in SAMPLES.items():
        for i, (c, a) in enumerate(rows):
            lines.append(f"{method},{seed},{split},{dom},{i},{c!r},{1 - c!r},1,{str(a).lower()}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _expected(method: str, seed: int, split: str, csf: str) -> list[tuple]:
    """Per default target c: tau = numpy.quantile(non-abstained ID confidences, 1 - c), and
    the share of all samples of each domain not abstained with confidence >= tau."""

    def conf(c: float) -> float:
        return c if csf == "confidence" else 1 - c

    ident, ood = SAMPLES[(method, seed, split, "id")], SAMPLES[(method, seed, split, "ood")]
    out = []
    for c in (0.6, 0.7, 0.8, 0.9):
        tau = float(np.quantile([conf(x) for x, a in ident if not a], 1 - c))
        rates = [float(Fraction(sum(not a and conf(x) >= tau for x, a in d), len(d))) for d in (ident, ood)]
        out.append(
            (method, seed, split, csf, c, tau, rates[0], rates[1], rates[1], rates[0] / (rates[1] + 1e-8))
        )
    return out


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory, warehouse_template: Path) -> list[tuple]:
    folder = tmp_path_factory.mktemp("view")
    wh = folder / "w.duckdb"
    shutil.copyfile(warehouse_template, wh)
    with open_warehouse(wh) as con:
        ingest_file(con, _csv(folder / "pairs.csv"))
    con = duckdb.connect(str(wh), read_only=True)
    try:
        return con.execute(f"SELECT {COLUMNS} FROM v_ood_at_id_coverage ORDER BY ALL").fetchall()
    finally:
        con.close()


def test_view_rows_follow_the_definition(rows):
    expected = [
        *_expected("m", 1, "test", "b"),
        *_expected("m", 1, "test", "confidence"),
        *_expected("n", 1, "test", "b"),
        *_expected("n", 1, "test", "confidence"),
    ]
    assert rows == sorted(expected)


def test_view_threshold_is_numpy_quantile_to_the_last_bit(rows):
    # n: the 0.7 target's quantile is 0.16000000000000003 (quantile_cont gives 0.16), which
    # accepts one of the two OOD samples only if the threshold is numpy's to the last bit
    (row,) = [r for r in rows if r[0] == "n" and r[3] == "confidence" and r[4] == 0.7]
    assert row[5:8] == (0.16000000000000003, 2 / 3, 0.5)
