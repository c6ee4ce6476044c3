"""`evaluate --group COLUMN` (docs/metrics-extended.md): each group's AURC, AUGRC, Cmax and
Coverage@Risk against a plain oracle written from the definitions, with CIs over the
evaluation's own cluster draws, and the coverage gaps at each CSF's Coverage@Risk threshold."""

from __future__ import annotations

import duckdb
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


def test_group_by_an_attribute_column_equals_the_oracle_and_is_stored(tmp_path, run_cli):
    """A file's extra column (site) groups the samples: the metrics with CIs equal the oracle's,
    the coverages and gaps at each Coverage@Risk threshold are exact, the stored rows
    (evaluation_group_metrics) hold the artifact's numbers, the console and the report show them."""
    rng = np.random.RandomState(5)
    by_cluster: dict[int, list[Sample]] = {}
    lines = []
    for i in range(45):
        cluster, site = i % 15, ["north", "south", "east"][rng.randint(0, 3)]
        conf, loss = float(rng.randint(0, 8)) / 7, float(rng.rand() < 0.35)
        lines.append(f"{i},{site},{cluster},{conf},{int(loss == 0)},{rng.randint(0, 99)}")
        by_cluster.setdefault(cluster, []).append((conf, loss, site))
    wh = ingest_text(
        run_cli, tmp_path, "sample_id,site,cluster,confidence,correct,age\n" + "\n".join(lines) + "\n"
    )
    b, seed, alphas = 40, 11, ("0.25", "0.4")
    args = [
        "evaluate",
        "--input",
        "run",
        "--warehouse",
        wh,
        "--group",
        "site",
        "--alpha-grid",
        ",".join(alphas),
    ]
    args += ["--bootstrap-resamples", str(b), "--seed", str(seed), "--no-publish"]
    art = json_of(run_cli, *args)
    block = art["groups"]
    everyone = [s for c in sorted(by_cluster) for s in by_cluster[c]]
    assert (block["column"], block["values"]) == ("site", ["east", "north", "south"])
    pids = sorted(by_cluster)
    rows = draws(len(pids), b, seed)
    for g in block["values"]:
        got = block["metrics"]["confidence"][g]
        mine = [s for s in everyone if s[2] == g]
        assert got["n"] == len(mine)
        assert (got["cmax"], got["aurc_full"], got["augrc_full"]) == pytest.approx(areas(mine), rel=1e-12)
        reps = [areas([s for j in row for s in by_cluster[pids[j]] if s[2] == g]) for row in rows]
        kept = [rep[2] for rep in reps if rep is not None]
        assert got["ci95"]["augrc_full"] == pytest.approx(list(np.percentile(kept, [2.5, 97.5])), rel=1e-12)
    m = art["confidence_variants"]["confidence"]
    for key in ("0.25", "0.40"):
        t = m["coverage_at_risk"][key]["threshold"]
        gap = block["coverage_gaps"]["confidence"][key]
        expected = {}
        for g in block["values"]:
            mine = [s for s in everyone if s[2] == g]
            expected[g] = sum(1 for s in mine if t is not None and s[0] >= t) / len(mine)
        assert gap["threshold"] == t and t is not None
        assert gap["coverage"] == expected  # exact: the same two counts divided
        assert gap["gap"] == max(expected.values()) - min(expected.values())
    # stored: one row per (group, metric) and a gap row per alpha, the artifact's numbers
    con = duckdb.connect(str(wh), read_only=True)
    stored = con.execute(
        "SELECT group_value, metric, metric_base, at_value, value, ci_low, ci_high "
        "FROM evaluation_group_metrics WHERE group_column = 'site' AND csf = 'confidence' ORDER BY ALL"
    ).fetchall()
    con.close()
    mine = {(r[0], r[1]): r for r in stored}
    east = block["metrics"]["confidence"]["east"]
    assert mine[("east", "aurc_full")][4:] == (east["aurc_full"], *east["ci95"]["aurc_full"])
    assert mine[("east", "n")][4] == east["n"]
    assert mine[("east", "group_coverage_0.40")][2:5] == ("group_coverage", 0.4, expected["east"])
    assert mine[(None, "coverage_gap_0.40")][2:5] == ("coverage_gap", 0.4, gap["gap"])
    assert len(stored) == 3 * (1 + 3 + 2 + 2) + 2
    # the console's table under the main one, and the report's section from the stored rows
    r = run_cli(args)
    assert r.exit_code == 0 and "per site" in r.stdout and "cov@thr 0.40" in r.stdout
    assert f"{east['aurc_full']:.4f}" in r.stdout
    r = run_cli(["report", "--evaluation", "1", "--warehouse", wh, "--output", tmp_path / "r.html"])
    assert r.exit_code == 0
    page = (tmp_path / "r.html").read_text()
    assert "<h2>Per site</h2>" in page and f"{east['aurc_full']:.4f}" in page


def test_group_needs_a_known_column_and_one_per_sample_input(tmp_path, run_cli):
    wh = ingest_text(run_cli, tmp_path, "sample_id,confidence,correct,site\n1,0.5,1,a\n2,0.4,0,\n")
    r = run_cli(["evaluate", "--input", "run", "--warehouse", wh, "--group", "colour"])
    assert (
        r.exit_code == 2
        and r.stderr == "error: --group colour: not a column of run; choose one of label, prediction, site\n"
    )
    r = run_cli(["evaluate", "--input", "run", "--warehouse", wh, "--group", "site"])
    assert r.exit_code == 1 and r.stderr.endswith("--group site: sample 2 of run has no site\n")


def test_the_shared_plateau_oracle_by_hand():
    """plateau_points/plateau_areas, the oracle of this module, SCOD's and class-balanced's: four
    units, one abstained, a tie at 0.8; by hand AURC = 1/2 x (0 + 1/3) / 2 = 1/12, AUGRC = 1/16."""
    from fractions import Fraction as F

    points = plateau_points([(0.9, F(0)), (0.8, F(1)), (0.8, F(0)), (None, F(1))])
    assert points == [(0.25, 0, 0), (0.75, F(1, 3), F(1, 4))]
    assert plateau_areas(points) == pytest.approx((1 / 12, 1 / 16), rel=1e-15, abs=0)
    assert plateau_areas([]) == (0, 0)


def _car(samples: list[Sample], alpha: float) -> float:
    """Coverage@Risk(alpha) of the plateau points: the largest coverage with selective risk <= alpha."""
    ok = [cov for cov, sel, _ in plateau_points([(c, loss) for c, loss, _ in samples]) if sel <= alpha]
    return max(ok, default=0.0)


def test_coverage_at_risk_cis_drop_replicates_without_the_group(tmp_path, run_cli):
    """A replicate that drew no sample of a group counted as Coverage@Risk 0 (Cmax, AURC and
    AUGRC dropped it, as docs/metrics-extended.md says): a one-cluster group's CI read [0, 1]
    where every replicate that had it gave 1."""
    rng = np.random.RandomState(5)
    by_cluster: dict[int, list[Sample]] = {}
    lines = []
    for i in range(40):
        cluster = i % 10
        site = "solo" if cluster == 9 else "ab"[cluster % 2]
        conf = float(rng.randint(0, 8)) / 7
        loss = 0.0 if site == "solo" else float(rng.rand() < 0.4)
        lines.append(f"{i},{cluster},{conf},{int(loss == 0)},{site}")
        by_cluster.setdefault(cluster, []).append((conf, loss, site))
    header = "sample_id,cluster,confidence,correct,site\n"
    wh = ingest_text(run_cli, tmp_path, header + "\n".join(lines) + "\n")
    b, seed, alphas = 40, 3, (0.1, 0.4)
    args = ["--group", "site", "--alpha-grid", "0.1,0.4", "--bootstrap-resamples", str(b)]
    args += ["--seed", str(seed)]
    art = json_of(run_cli, "evaluate", "--input", "run", "--warehouse", wh, *args)
    pids = sorted(by_cluster)
    rows = draws(len(pids), b, seed)
    assert sum(9 not in row for row in rows) > 2  # the solo group is missing from some replicates
    for g in ("a", "b", "solo"):
        got = art["groups"]["metrics"]["confidence"][g]["ci95"]["coverage_at_risk"]
        reps = [[s for j in row for s in by_cluster[pids[j]] if s[2] == g] for row in rows]
        for a in alphas:
            kept = [_car(r, a) for r in reps if r]
            want = list(np.percentile(kept, [2.5, 97.5]))
            assert got[f"{a:.2f}"] == pytest.approx(want, rel=1e-12, abs=1e-15), (g, a)
    assert art["groups"]["metrics"]["confidence"]["solo"]["ci95"]["coverage_at_risk"]["0.10"] == [1.0, 1.0]
