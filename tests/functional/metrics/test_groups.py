"""`evaluate --group COLUMN` (docs/metrics-extended.md): each group's AURC, AUGRC, Cmax and
Coverage@Risk against a plain oracle written from the definitions, with CIs over the
evaluation's own cluster draws, and the coverage gaps at each CSF's Coverage@Risk threshold."""

from __future__ import annotations

import numpy as np
import pytest
from metrics_support import draws, ingest_text, json_of, plateau_areas, plateau_points

# (confidence or None when abstained, loss, label)
Sample = tuple[float | None, float, str]


def areas(samples: list[Sample]) -> tuple[float, float, float] | None:
    """(Cmax, AURC, AUGRC) of plateau-trapezoid working points; None without samples."""
    if not samples:
        return None
    points = plateau_points([(conf, loss) for conf, loss, _ in samples])
    return (points[-1][0] if points else 0.0), *plateau_areas(points)


def test_group_metrics_and_coverage_gaps_equal_the_oracle(tmp_path, run_cli):
    rng = np.random.RandomState(9)
    by_cluster: dict[int, list[Sample]] = {}
    lines = []
    for i in range(36):
        cluster = i % 9
        abstained = rng.rand() < 0.1
        conf = None if abstained else float(rng.randint(0, 6)) / 5
        label, pred = "pqr"[rng.randint(0, 3)], "pqr"[rng.randint(0, 3)]
        lines.append(f"{i},{cluster},{'' if conf is None else conf},{label},{pred},{str(abstained).lower()}")
        by_cluster.setdefault(cluster, []).append((conf, float(label != pred), label))
    wh = ingest_text(
        run_cli,
        tmp_path,
        "sample_id,cluster,confidence,label,prediction,abstained\n" + "\n".join(lines) + "\n",
    )
    b, seed = 30, 4
    art = json_of(
        run_cli,
        "evaluate",
        "--input",
        "run",
        "--warehouse",
        wh,
        "--group",
        "label",
        "--alpha-grid",
        "0.2,0.5",
        "--bootstrap-resamples",
        str(b),
        "--seed",
        str(seed),
    )
    block = art["groups"]
    everyone = [s for c in sorted(by_cluster) for s in by_cluster[c]]
    assert block["column"] == "label" and block["values"] == sorted({s[2] for s in everyone})
    pids = sorted(by_cluster)
    rows = draws(len(pids), b, seed)
    for g in block["values"]:
        got = block["metrics"]["confidence"][g]
        mine = [s for s in everyone if s[2] == g]
        cmax, aurc, augrc = areas(mine)
        assert got["n"] == len(mine)
        assert (got["cmax"], got["aurc_full"], got["augrc_full"]) == pytest.approx(
            (cmax, aurc, augrc), rel=1e-12
        )
        reps = [areas([s for j in row for s in by_cluster[pids[j]] if s[2] == g]) for row in rows]
        kept = [rep[1] for rep in reps if rep is not None]
        assert got["ci95"]["aurc_full"] == pytest.approx(
            list(np.percentile(kept, [2.5, 97.5])), rel=1e-12, abs=1e-15
        )
    m = art["confidence_variants"]["confidence"]
    for key in ("0.20", "0.50"):
        t = m["coverage_at_risk"][key]["threshold"]
        gap = block["coverage_gaps"]["confidence"][key]
        expected = {
            g: sum(1 for s in everyone if s[2] == g and s[0] is not None and t is not None and s[0] >= t)
            / sum(1 for s in everyone if s[2] == g)
            for g in block["values"]
        }
        assert gap["threshold"] == t
        assert gap["coverage"] == pytest.approx(expected, rel=1e-15)
        assert gap["gap"] == pytest.approx(
            max(expected.values()) - min(expected.values()), rel=1e-15, abs=1e-15
        )


def test_group_needs_a_known_column_and_one_per_sample_input(tmp_path, run_cli):
    r = run_cli(["evaluate", "--input", "x", "--warehouse", tmp_path / "w.duckdb", "--group", "colour"])
    assert (
        r.exit_code == 2
        and "--group colour: choose a per-sample column, one of label, prediction" in r.stderr
    )


def test_the_shared_plateau_oracle_by_hand():
    """plateau_points/plateau_areas, the oracle of this module, SCOD's and class-balanced's: four
    units, one abstained, a tie at 0.8; by hand AURC = 1/2 x (0 + 1/3) / 2 = 1/12, AUGRC = 1/16."""
    from fractions import Fraction as F

    points = plateau_points([(0.9, F(0)), (0.8, F(1)), (0.8, F(0)), (None, F(1))])
    assert points == [(0.25, 0, 0), (0.75, F(1, 3), F(1, 4))]
    assert plateau_areas(points) == pytest.approx((1 / 12, 1 / 16), rel=1e-15, abs=0)
    assert plateau_areas([]) == (0, 0)
