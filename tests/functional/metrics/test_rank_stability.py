"""Rank stability of CSFs over the bootstrap replicates (docs/metrics-extended.md): evaluate's
rank_stability against metrics_support's plain oracle over the same cluster draws (AURC per
replicate by its pure-Python definition, ranks and pairwise shares by counting, the bootstrap
p-value and Holm's adjustment written out), its console table and report chart."""

from __future__ import annotations

import json
from typing import Any

import duckdb
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from metrics_support import Config, Unit, assert_same, draws, ingest_text, rank_stability, scalars

from riskcov.bootstrap.ranks import holm

CSFS = ("a", "b", "c")


def _run(seed: int) -> tuple[str, dict[int, list[tuple[dict[str, float | None], int]]]]:
    """20 samples in 10 clusters, three score columns with ties, 0/1 losses, abstentions."""
    rng = np.random.RandomState(seed)
    lines, by_cluster = [], {}
    for i in range(20):
        cluster = i % 10
        abstained = rng.rand() < 0.1
        scores = {c: None if abstained else float(rng.randint(0, 6)) / 5 for c in CSFS}
        loss = int(rng.rand() < 0.4)
        cells = ",".join("" if scores[c] is None else str(scores[c]) for c in CSFS)
        lines.append(f"{i},{cluster},{cells},{1 - loss},{str(abstained).lower()}")
        by_cluster.setdefault(cluster, []).append((scores, loss))
    head = "sample_id,cluster," + ",".join(f"confidence_{c}" for c in CSFS) + ",correct,abstained\n"
    return head + "\n".join(lines) + "\n", by_cluster


def _aurc(by_cluster: dict[int, Any], clusters: list[int], csf: str) -> float:
    units, n = [], 0
    for j, c in enumerate(clusters):
        for idx, (scores, loss) in enumerate(by_cluster[c]):
            n += 1
            if scores[csf] is not None:
                units.append(Unit(scores[csf], loss, j, idx))
    value = scalars(units, n, Config(loss="abs"))["aurc_full"][0]
    assert value is not None
    return value


def holm_by_hand(p: list[float]) -> list[float]:
    """Holm: reject in ascending order while p_(i) <= alpha / (M - i + 1); the adjusted p of the
    i-th smallest is the largest (M - j + 1) p_(j) over j <= i, capped at 1."""
    order = sorted(range(len(p)), key=lambda i: (p[i], i))
    out = [0.0] * len(p)
    for pos, i in enumerate(order):
        out[i] = min(1.0, max((len(p) - q) * p[order[q]] for q in range(pos + 1)))
    return out


@given(st.lists(st.sampled_from([0.0, 0.01, 0.02, 0.04, 0.3, 0.5, 1.0]), min_size=1, max_size=8))
def test_holm_equals_the_textbook_adjustment(p):
    assert holm(p) == pytest.approx(holm_by_hand(p), rel=1e-15)


@pytest.mark.parametrize("seed", [3, 4])
def test_ranks_and_pairs_equal_the_oracle_over_the_same_draws(tmp_path, run_cli, seed):
    text, by_cluster = _run(seed)
    wh = ingest_text(run_cli, tmp_path, text)
    b = 60
    r = run_cli(
        [
            "evaluate",
            "--input",
            "run",
            "--warehouse",
            wh,
            "--confidence",
            "all",
            "--json",
            "--bootstrap-resamples",
            str(b),
            "--seed",
            str(seed),
        ]
    )
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    got = json.loads(r.stdout)["rank_stability"]
    pids = sorted(by_cluster)
    rows = draws(len(pids), b, seed)
    values = {c: [_aurc(by_cluster, [pids[j] for j in row], c) for row in rows] for c in CSFS}
    assert_same(rank_stability(values, b), got)
    assert [pair["p_holm"] for pair in got["pairs"]] == pytest.approx(
        holm_by_hand([pair["p_value"] for pair in got["pairs"]]), rel=1e-15
    )


def test_the_console_shows_it_and_the_report_draws_it(tmp_path, run_cli):
    text, _ = _run(5)
    wh = ingest_text(run_cli, tmp_path, text)
    out = tmp_path / "art.json"
    r = run_cli(
        [
            "evaluate",
            "--input",
            "run",
            "--warehouse",
            wh,
            "--confidence",
            "all",
            "--bootstrap-resamples",
            "40",
            "--output",
            out,
        ]
    )
    assert r.exit_code == 0, r.stderr
    assert "rank stability of aurc_full, 40 replicates (rank 1 = lowest)" in r.stdout
    ranks = json.loads(out.read_text())["rank_stability"]["ranks"]
    report = tmp_path / "report.html"
    assert run_cli(["report", "--artifact", out, "--output", report]).exit_code == 0
    page = report.read_text()
    for csf, shares in ranks.items():
        for k, share in enumerate(shares, start=1):
            assert f'data-rank="{k}" data-share="{share!r}"' in page, (csf, k)
    # the stored evaluation's report draws the same bars from the warehouse's rows
    stored = tmp_path / "stored.html"
    assert run_cli(["report", "--evaluation", "1", "--warehouse", wh, "--output", stored]).exit_code == 0
    assert page[page.index('<svg xmlns="http://www.w3.org/2000/svg" width="620"') :].split("</svg>")[0] in (
        stored.read_text()
    )


def test_one_csf_or_no_bootstrap_has_no_rank_stability(tmp_path, run_cli):
    text, _ = _run(6)
    wh = ingest_text(run_cli, tmp_path, text)
    for args in (
        ["--confidence", "a", "--bootstrap-resamples", "20"],
        ["--confidence", "all", "--bootstrap-resamples", "0"],
    ):
        r = run_cli(["evaluate", "--input", "run", "--warehouse", wh, "--json", *args])
        assert r.exit_code == 0 and "rank_stability" not in json.loads(r.stdout)


def test_paired_inputs_rank_each_input_and_csf_over_the_same_paired_draws(tmp_path, run_cli):
    """Two experiments of one run (methods m1 and m2, the same clusters) x CSFs a and b: four
    contestants `input_<k>:<csf>`, each replicate drawing the same clusters for both inputs; the
    ranks, pairs and Holm p-values equal the oracle's, the stored rows and the report show them."""
    rng = np.random.RandomState(8)
    lines, by = [], {"m1": {}, "m2": {}}
    for method in ("m1", "m2"):
        for i in range(24):
            cluster = i % 8
            scores = {c: float(rng.randint(0, 6)) / 5 for c in ("a", "b")}
            loss = int(rng.rand() < (0.3 if method == "m1" else 0.45))
            lines.append(f"{method},{i},{cluster},{scores['a']},{scores['b']},{1 - loss}")
            by[method].setdefault(cluster, []).append((scores, loss))
    head = "method,sample_id,cluster,confidence_a,confidence_b,correct\n"
    wh = ingest_text(run_cli, tmp_path, head + "\n".join(lines) + "\n")
    b, seed, out = 50, 2, tmp_path / "paired.json"
    args = ["evaluate", "--input", "run", "--input", "run", "--method", "m1", "--method", "m2"]
    args += ["--confidence", "all", "--warehouse", wh, "--bootstrap-resamples", str(b), "--seed", str(seed)]
    r = run_cli([*args, "--output", out])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    got = json.loads(out.read_text())["rank_stability"]
    pids = sorted(by["m1"])
    rows = draws(len(pids), b, seed)
    values = {
        f"input_{k}:{c}": [_aurc(by[m], [pids[j] for j in row], c) for row in rows]
        for k, m in enumerate(("m1", "m2"))
        for c in ("a", "b")
    }
    expected = rank_stability(values, b)
    contestants = got.pop("contestants")
    assert contestants == {
        f"input_{k}:{c}": {"input": f"input_{k}", "csf": c} for k in range(2) for c in ("a", "b")
    }
    assert_same(expected, got)
    assert "rank stability of aurc_full, 50 replicates" in r.stdout and "input_1:b" in r.stdout
    con = duckdb.connect(str(wh), read_only=True)
    try:
        stored = con.execute(
            "SELECT input, csf, metric, value FROM evaluation_metrics WHERE metric LIKE 'rank_share_%' "
            "ORDER BY input, csf, metric"
        ).fetchall()
    finally:
        con.close()
    assert stored == [
        (f"input_{k}", c, f"rank_share_{rank}", got["ranks"][f"input_{k}:{c}"][rank - 1])
        for k in range(2)
        for c in ("a", "b")
        for rank in range(1, 5)
    ]
    report = tmp_path / "stored.html"
    assert run_cli(["report", "--evaluation", "1", "--warehouse", wh, "--output", report]).exit_code == 0
    page = report.read_text()
    for name, shares in got["ranks"].items():
        assert f"<title>{name}: P(rank 1) = {shares[0]:.3f}" in page
