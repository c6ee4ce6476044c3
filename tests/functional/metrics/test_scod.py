"""`riskcov scod` (docs/metrics-extended.md): SCOD-AURC, SCOD-AUGRC and Coverage@Risk against a
plain oracle written from the definition (ID and OOD samples pooled, loss 0 / (1 - c) x loss /
c), with bootstrap CIs over the same cluster draws (clusters per domain), and the stored rows."""

from __future__ import annotations

import json

import duckdb
import numpy as np
import pytest
from metrics_support import draws, ingest_text, json_of, plateau_areas, plateau_points

# (ood, confidence or None when abstained, loss)
Sample = tuple[bool, float | None, float]


def scod(samples: list[Sample], c: float, alphas: list[float]) -> tuple[float, float, list[float]]:
    """(SCOD-AURC, SCOD-AUGRC, [Coverage@Risk(alpha)]): accept every sample with confidence >= t
    for each distinct t, most confident first; an accepted ID sample costs (1 - c) x its loss,
    an accepted OOD sample c; selective risk constant back to coverage 0, generalized risk 0
    there; trapezoids; Coverage@Risk the largest point coverage with selective risk <= alpha."""
    points = plateau_points([(conf, c if ood else (1 - c) * loss) for ood, conf, loss in samples])
    aurc, augrc = plateau_areas(points)
    car = [max((cov for cov, sel, _ in points if sel <= a), default=0.0) for a in alphas]
    return aurc, augrc, car


def _data(seed: int) -> tuple[str, dict[tuple[bool, int], list[Sample]]]:
    rng = np.random.RandomState(seed)
    lines, by_cluster = [], {}
    for i in range(28):
        ood = i % 4 == 0
        cluster = i % 5  # the same names in both domains: still separate units
        abstained = rng.rand() < 0.08
        conf = None if abstained else float(rng.randint(0, 7)) / 6
        loss = int(rng.rand() < 0.35)
        lines.append(
            f"{i},{'ood' if ood else 'id'},{cluster},{'' if conf is None else conf},{1 - loss},"
            + str(abstained).lower()
        )
        by_cluster.setdefault((ood, cluster), []).append((ood, conf, float(loss)))
    return "sample_id,domain,cluster,confidence,correct,abstained\n" + "\n".join(lines) + "\n", by_cluster


@pytest.mark.parametrize("seed", [1, 2])
def test_scod_equals_the_oracle_with_cis_over_the_same_draws(tmp_path, run_cli, seed):
    text, by_cluster = _data(seed)
    wh = ingest_text(run_cli, tmp_path, text)
    b, costs, alphas = 40, [0.0, 0.3, 1.0], [0.1, 0.25]
    doc = json_of(
        run_cli,
        "scod",
        "--input",
        "run",
        "--warehouse",
        wh,
        "--c-ood",
        "0,0.3,1",
        "--alpha-grid",
        "0.1,0.25",
        "--bootstrap-resamples",
        str(b),
        "--seed",
        str(seed),
    )
    keys = sorted(by_cluster)  # id clusters first, each domain's in cluster order
    assert doc["inputs"]["clusters"] == len(keys)
    assert [(row["csf"], row["c_ood"]) for row in doc["rows"]] == [("confidence", c) for c in costs]
    rows = draws(len(keys), b, seed)
    for row, c in zip(doc["rows"], costs, strict=True):
        aurc, augrc, car = scod([s for k in keys for s in by_cluster[k]], c, alphas)
        assert (row["scod_aurc"], row["scod_augrc"]) == pytest.approx((aurc, augrc), rel=1e-12, abs=1e-15)
        assert list(row["coverage_at_risk"].values()) == pytest.approx(car, rel=1e-15)
        reps = [scod([s for j in draw for s in by_cluster[keys[j]]], c, alphas) for draw in rows]
        for n, key in enumerate(("scod_aurc", "scod_augrc")):
            expected = np.percentile([rep[n] for rep in reps], [2.5, 97.5])
            assert row["ci95"][key] == pytest.approx(list(expected), rel=1e-12, abs=1e-15)
    con = duckdb.connect(str(wh), read_only=True)
    try:
        stored = con.execute(
            "SELECT csf, c_ood, metric, alpha, value, ci_low, ci_high FROM scod_results "
            "WHERE scod_id = ? ORDER BY c_ood, metric, alpha",
            [doc["scod_id"]],
        ).fetchall()
    finally:
        con.close()
    assert len(stored) == len(costs) * (2 + len(alphas))
    first = doc["rows"][0]
    assert stored[3] == (  # coverage_at_risk x 2, scod_augrc, scod_aurc
        "confidence",
        0.0,
        "scod_aurc",
        None,
        first["scod_aurc"],
        *first["ci95"]["scod_aurc"],
    )


def test_a_wrong_id_sample_counts_and_an_ood_sample_costs_c(tmp_path, run_cli):
    # accepted in order: OOD (cost c), wrong ID (1 - c), right ID (0)
    text = "sample_id,domain,confidence,correct\n1,ood,0.9,1\n2,id,0.8,0\n3,id,0.7,1\n"
    wh = ingest_text(run_cli, tmp_path, text)
    r = run_cli(
        [
            "scod",
            "--input",
            "run",
            "--warehouse",
            wh,
            "--c-ood",
            "0.25",
            "--bootstrap-resamples",
            "0",
            "--json",
        ]
    )
    row = json.loads(r.stdout)["rows"][0]
    # selective risks 0.25, (0.25 + 0.75) / 2, 1 / 3 at coverages 1/3, 2/3, 1
    aurc = 0.25 / 3 + (0.25 + 0.5) / 6 + (0.5 + 1 / 3) / 6
    augrc = (0.25 / 3) / 6 + (0.25 / 3 + 1 / 3) / 6 + (1 / 3 + 1 / 3) / 6
    assert (row["scod_aurc"], row["scod_augrc"]) == pytest.approx((aurc, augrc), rel=1e-14)
    assert row["ci95"]["scod_aurc"] is None


def test_a_run_without_ood_samples_is_refused(tmp_path, run_cli):
    wh = ingest_text(run_cli, tmp_path, "sample_id,confidence,correct\n1,0.9,1\n2,0.5,0\n")
    r = run_cli(["scod", "--input", "run", "--warehouse", wh])
    assert r.exit_code != 0 and "domain ood" in r.stderr, r.stderr
