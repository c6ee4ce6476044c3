"""FWER procedures of the certified rule (docs/risk-control.md): Holm and split fixed-sequence
against plain oracles written from their definitions, and the stored per-candidate p-values of
`risk-control --fwer ...`."""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from riskcov.riskcontrol import fwer

# p-values and delta = 0.1 chosen so that no p equals delta / k for k <= 6 (no boundary ties)
P_VALUES = st.lists(st.sampled_from([0.001, 0.013, 0.027, 0.049, 0.11, 0.5]), min_size=1, max_size=6)


@given(P_VALUES)
def test_holm_rejects_what_the_step_down_definition_rejects(p):
    """H_(i), the i-th smallest, is rejected iff p_(j) <= delta / (M - j + 1) for every j <= i."""
    order = sorted(range(len(p)), key=lambda j: (p[j], j))
    expected = [False] * len(p)
    for pos, i in enumerate(order):
        expected[i] = all(Fraction(p[order[q]]) * (len(p) - q) <= Fraction(1, 10) for q in range(pos + 1))
    assert fwer.holm(p, 0.1) == expected


@given(P_VALUES, P_VALUES)
def test_split_fixed_sequence_tests_the_second_half_in_the_first_halfs_order(first, second):
    n = min(len(first), len(second))
    first, second = first[:n], second[:n]
    order = sorted(range(n), key=lambda j: (first[j], -j))  # ascending, ties to higher coverage
    expected, going = [False] * n, True
    for j in order:
        going = going and second[j] <= 0.1
        expected[j] = going
    assert fwer.split_fixed_sequence(first, second, 0.1) == expected


def _risk_control(run_cli, tmp_path, cal, test, *flags):
    """risk-control's JSON over one method and seed with these cal and test (confidence, loss)
    samples, in tmp_path/w.duckdb."""
    lines = ["method,seed,split,domain,sample_id,confidence,loss"]
    lines += [f"m,1,cal,id,{i},{c},{loss}" for i, (c, loss) in enumerate(cal)]
    lines += [f"m,1,test,id,{i},{c},{loss}" for i, (c, loss) in enumerate(test)]
    src = tmp_path / "rc.csv"
    src.write_text("\n".join(lines) + "\n")
    r = run_cli(["risk-control", "--input", src, "--warehouse", tmp_path / "w.duckdb", *flags, "--json"])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    return json.loads(r.stdout)


def _hoeffding(loss: float, k: int, alpha: float) -> float:
    return 1.0 if k == 0 else math.exp(-2 * k * max(alpha - loss / k, 0.0) ** 2)


def test_split_fixed_sequence_end_to_end_stores_the_second_halfs_p_values(tmp_path, run_cli):
    rng = np.random.RandomState(11)
    cal = [(float(rng.randint(0, 20)) / 20, int(rng.rand() < 0.15)) for _ in range(60)]
    wh = tmp_path / "w.duckdb"
    doc = _risk_control(
        run_cli,
        tmp_path,
        cal,
        cal[:20],
        "--alpha",
        "0.3",
        "--bound",
        "hoeffding",
        "--candidates",
        "6",
        "--fwer",
        "split-fixed-sequence",
    )
    # the definition: halves by RandomState(0).permutation, candidates from the whole cal split
    first = np.zeros(len(cal), dtype=bool)
    first[np.random.RandomState(0).permutation(len(cal))[: len(cal) // 2]] = True
    thresholds = sorted({c for c, _ in cal}, reverse=True)
    k_at = {t: sum(c >= t for c, _ in cal) for t in thresholds}
    cands = []
    for g in range(1, 7):
        hit = next((t for t in thresholds if k_at[t] / len(cal) >= g / 6), None)
        if hit is not None and hit not in cands:
            cands.append(hit)

    def p_half(mask: np.ndarray, t: float) -> float:
        accepted = [loss for (c, loss), keep in zip(cal, mask, strict=True) if keep and c >= t]
        return _hoeffding(float(sum(accepted)), len(accepted), 0.3)

    p1 = [p_half(first, t) for t in cands]
    p2 = [p_half(~first, t) for t in cands]
    rejected = fwer.split_fixed_sequence(p1, p2, 0.1)
    got = [(row["threshold"], row["p_value"], row["rejected"]) for row in doc["p_values"]]
    assert got == [(t, pytest.approx(p, rel=1e-12), ok) for t, p, ok in zip(cands, p2, rejected, strict=True)]
    certified = next(row for row in doc["rows"] if row["rule"] == "certified")
    passed = [t for t, ok in zip(cands, rejected, strict=True) if ok]
    assert certified["threshold"] == (passed[-1] if passed else None)
    con = duckdb.connect(str(wh), read_only=True)
    try:
        stored = con.execute(
            "SELECT procedure, threshold, p_value, rejected FROM risk_control_p_values "
            "WHERE risk = 'combined' ORDER BY candidate"
        ).fetchall()
    finally:
        con.close()
    assert stored == [("split-fixed-sequence", t, p, ok) for t, p, ok in got]


@pytest.mark.parametrize("procedure", ["holm", "bonferroni", "fixed-sequence"])
def test_each_procedure_picks_the_highest_coverage_rejected_candidate(tmp_path, run_cli, procedure):
    cal = [(0.95 - 0.01 * i, int(i % 7 == 6)) for i in range(80)]
    doc = _risk_control(
        run_cli,
        tmp_path,
        cal,
        cal,
        "--alpha",
        "0.3",
        "--bound",
        "hoeffding",
        "--candidates",
        "8",
        "--fwer",
        procedure,
    )
    p = [row["p_value"] for row in doc["p_values"]]
    for row in doc["p_values"]:  # the whole cal split's p-values
        accepted = [loss for c, loss in cal if c >= row["threshold"]]
        assert row["p_value"] == pytest.approx(
            _hoeffding(float(sum(accepted)), len(accepted), 0.3), rel=1e-12
        )
    test = {"holm": fwer.holm, "bonferroni": fwer.bonferroni, "fixed-sequence": fwer.fixed_sequence}
    assert [row["rejected"] for row in doc["p_values"]] == test[procedure](p, 0.1)
    passed = [row["threshold"] for row in doc["p_values"] if row["rejected"]]
    certified = next(row for row in doc["rows"] if row["rule"] == "certified")
    assert certified["threshold"] == (passed[-1] if passed else None)


def test_several_risks_at_once_take_the_largest_p_value(tmp_path, run_cli):
    """--risk selective:0.3 --risk coverage_loss:0.5: p(t) = max of the selective risk's
    Hoeffding p-value (n = accepted) and the rejected share's (n = all cal samples)."""
    cal = [(round(0.999 - 0.002 * i, 3), int(i % 10 == 9)) for i in range(400)]
    doc = _risk_control(
        run_cli,
        tmp_path,
        cal,
        cal,
        "--risk",
        "selective:0.3",
        "--risk",
        "coverage_loss:0.5",
        "--bound",
        "hoeffding",
        "--candidates",
        "10",
        "--fwer",
        "holm",
    )
    assert doc["options"]["alphas"] == [0.3] and {row["alpha"] for row in doc["rows"]} == {0.3}
    n = len(cal)
    for row in doc["p_values"]:
        accepted = [loss for c, loss in cal if c >= row["threshold"]]
        k = len(accepted)
        expected = max(_hoeffding(float(sum(accepted)), k, 0.3), _hoeffding(float(n - k), n, 0.5))
        assert row["p_value"] == pytest.approx(expected, rel=1e-12)
    # the coverage constraint binds: low-coverage candidates cannot be certified (which is why
    # fixed-sequence, starting from the most conservative candidate, certifies nothing here)
    assert not any(row["rejected"] for row in doc["p_values"] if row["cal_coverage"] < 0.5)
    assert any(row["rejected"] for row in doc["p_values"])


def test_a_bad_risk_is_refused(tmp_path, run_cli):
    r = run_cli(
        ["risk-control", "--input", "x", "--warehouse", tmp_path / "w.duckdb", "--risk", "recall:0.1"]
    )
    assert (r.exit_code, r.stderr.strip()) == (
        2,
        "error: --risk recall:0.1: the kind is one of selective, generalized, coverage_loss",
    )


def test_each_risks_p_value_is_stored_beside_the_combined_one(tmp_path, run_cli):
    """risk_control_p_values: per candidate a `combined` row (the p-value tested) and one row per
    risk with its own p-value, level and n (the accepted count for a selective risk, all cal
    samples for the others), each equal to the definition's Hoeffding p-value."""
    cal = [(round(0.999 - 0.004 * i, 3), int(i % 8 == 7)) for i in range(200)]
    doc = _risk_control(
        run_cli,
        tmp_path,
        cal,
        cal,
        "--risk",
        "selective:0.3",
        "--risk",
        "generalized:0.3",
        "--risk",
        "coverage_loss:0.8",
        "--bound",
        "hoeffding",
        "--candidates",
        "6",
        "--fwer",
        "bonferroni",
    )
    n = len(cal)
    expected_rows = []
    for row in doc["p_values"]:
        accepted = [loss for c, loss in cal if c >= row["threshold"]]
        k, loss = len(accepted), float(sum(accepted))
        mine = [
            ("selective", 0.3, k, _hoeffding(loss, k, 0.3)),
            ("generalized", 0.3, n, _hoeffding(loss, n, 0.3)),
            ("coverage_loss", 0.8, n, _hoeffding(float(n - k), n, 0.8)),
        ]
        got = [(r["risk"], r["level"], r["n"], r["p_value"]) for r in row["risks"]]
        assert [g[:3] for g in got] == [m[:3] for m in mine]
        assert [g[3] for g in got] == pytest.approx([m[3] for m in mine], rel=1e-12)
        assert row["p_value"] == max(g[3] for g in got)
        expected_rows.append((row["candidate"], "combined", None, None, row["p_value"], row["rejected"]))
        expected_rows += [(row["candidate"], *g, row["rejected"]) for g in got]
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    try:
        stored = con.execute(
            "SELECT candidate, risk, level, n_tested, p_value, rejected FROM risk_control_p_values "
            "ORDER BY candidate, risk = 'combined' DESC, rowid"
        ).fetchall()
        # docs/metrics-extended.md's queries: the violation rate per procedure, the binding risk
        rate, binding = (con.execute(q).fetchall() for q in _docs_queries())
    finally:
        con.close()
    assert stored == expected_rows
    certified = [r for r in doc["rows"] if r["rule"] == "certified"]
    assert any(r["threshold"] is not None for r in certified)  # something was certified
    violated = sum(r["violated"] for r in certified) / len(certified)
    coverage = sum(r["coverage"] for r in certified) / len(certified)
    assert rate == [("bonferroni", "m", 0.3, violated, coverage)]
    assert [(r[4], r[6]) for r in binding] == [  # every risk at the largest p (ties: all of them)
        (row["candidate"], x["risk"])
        for row in doc["p_values"]
        for x in sorted(row["risks"], key=lambda x: x["risk"])
        if x["p_value"] == row["p_value"]
    ]


def _docs_queries() -> list[str]:
    """The SQL blocks of docs/metrics-extended.md that read risk_control_p_values."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "metrics-extended.md").read_text()
    return [b for b in re.findall(r"```sql\n(.*?)```", text, re.S) if "risk_control_p_values" in b]


def test_group_coverage_at_every_rules_threshold_is_exact_and_stored(tmp_path, run_cli):
    """risk-control --group site: each rule's threshold (the certified one included) splits the
    test samples of each group; the coverage is the group's accepted count over its size, the
    gap the largest minus the smallest, stored in risk_control_group_coverage."""
    rng = np.random.RandomState(12)
    test: dict[int, list[tuple[float, str]]] = {}
    lines = ["method,seed,split,domain,sample_id,confidence,loss,site"]
    for seed in (1, 2):
        for split in ("cal", "test"):
            for i in range(1000):
                conf = float(rng.randint(0, 40)) / 40
                loss, site = int(rng.rand() < 0.3 * (1 - conf)), "nse"[rng.randint(0, 3)]
                lines.append(f"m,{seed},{split},id,{i},{conf},{loss},{site}")
                if split == "test":
                    test.setdefault(seed, []).append((conf, site))
    src = tmp_path / "g.csv"
    src.write_text("\n".join(lines) + "\n")
    flags = [
        "--alpha",
        "0.2,0.3",
        "--bound",
        "hoeffding",
        "--candidates",
        "5",
        "--group",
        "site",
        "--no-publish",
    ]
    r = run_cli(["risk-control", "--input", src, "--warehouse", tmp_path / "w.duckdb", *flags, "--json"])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    doc = json.loads(r.stdout)
    assert any(row["rule"] == "certified" and row["threshold"] is not None for row in doc["rows"])
    expected_rows = []
    for row in doc["rows"]:
        t, mine = row["threshold"], test[row["seed"]]
        cov = {
            g: sum(1 for c, s in mine if s == g and t is not None and c >= t)
            / sum(1 for _, s in mine if s == g)
            for g in "ens"
        }
        assert row["group_coverage"] == cov  # exact: the same two counts divided
        assert row["coverage_gap"] == max(cov.values()) - min(cov.values())
        expected_rows += [(row["seed"], row["rule"], row["alpha"], g, cov[g]) for g in "ens"]
    gaps = {(g["alpha"], g["rule"]): g for g in doc["group_gaps"]}
    for (alpha, rule), g in gaps.items():
        mine = [row["coverage_gap"] for row in doc["rows"] if (row["alpha"], row["rule"]) == (alpha, rule)]
        assert (g["max_gap"], g["mean_gap"]) == (max(mine), pytest.approx(sum(mine) / len(mine), rel=1e-15))
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    try:
        stored = con.execute(
            "SELECT seed, rule, alpha, group_value, coverage FROM risk_control_group_coverage "
            "WHERE group_column = 'site' ORDER BY ALL"
        ).fetchall()
    finally:
        con.close()
    assert stored == sorted(expected_rows)
    r = run_cli(["risk-control", "--input", src, "--warehouse", tmp_path / "w.duckdb", "--group", "region"])
    assert r.exit_code == 2 and "--group region: not a column of" in r.stderr


@pytest.mark.parametrize("seed", ["-1", str(2**32)])
def test_a_split_seed_numpy_cannot_take_is_refused(tmp_path, run_cli, seed):
    # it reached RandomState(seed): "internal error (ValueError: Seed must be between 0 and
    # 2**32 - 1)", exit 70
    src = tmp_path / "rc.csv"
    src.write_text(
        "method,seed,split,domain,sample_id,confidence,loss\nm,1,cal,id,1,0.5,0\nm,1,test,id,1,0.5,0\n"
    )
    wh = tmp_path / "w.duckdb"
    args = ["risk-control", "--input", src, "--warehouse", wh, "--procedure", "split-fixed-sequence"]
    r = run_cli([*args, "--split-seed", seed])
    assert (r.exit_code, r.stderr) == (2, f"error: --split-seed {seed} is not in 0..2**32-1\n")
    assert not wh.exists()
