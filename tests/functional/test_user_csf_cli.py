"""User CSFs end to end: `csf add/list/remove`, `--confidence sql:EXPR`, named CSFs in `all`,
`secondary:` and v_metrics, their null/missing-key policy, hostile text refused with one exact
line (the warehouse unchanged), DuckDB's external access off while they run; and ingest refusing
a verbalized_confidence outside 1..5."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest

from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.evaluation.run import Options, run

ITEMS = ["NoInterest", "Depressed", "Sleep", "Tired", "Appetite", "Failure", "Concentrating", "Moving"]
EXPR = "0.7 * token_msp + 0.3 * coalesce(retrieval_similarity_mean, 0)"
SQL = (
    "((CAST(0.7 AS DOUBLE) * s.token_msp) + (CAST(0.3 AS DOUBLE) * "
    "coalesce(s.retrieval_similarity_mean, CAST(0.0 AS DOUBLE))))"
)


def sig(pid: int, i: int) -> dict[str, Any]:
    return {
        "llm_evidence_count": (pid + i) % 4,
        "token_msp": ((pid * 3 + i) % 7) / 6,
        "retrieval_similarity_mean": None if (pid + i) % 3 == 0 else ((pid + 2 * i) % 5) / 4,
    }


def person(pid: int) -> dict[str, Any]:
    return {
        "participant_id": pid,
        "success": True,
        "predicted_items": {n: None if (pid + i) % 4 == 0 else (pid + i) % 4 for i, n in enumerate(ITEMS)},
        "ground_truth_items": {n: (pid * 2 + i) % 4 for i, n in enumerate(ITEMS)},
        "item_signals": {n: sig(pid, i) for i, n in enumerate(ITEMS)},
    }


def run_doc(run_id: str, people: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "run_metadata": {"run_id": run_id, "timestamp": "2025-01-01T00:00:00", "git_commit": "c"},
        "experiments": [{"provenance": {"mode": "few_shot"}, "results": {"results": people}}],
    }


DOC = run_doc("u", [person(p) for p in range(1, 9)])


@pytest.fixture
def wh(tmp_path: Path, run_cli: Any) -> Path:
    path = tmp_path / "w.duckdb"
    run = tmp_path / "u.json"
    run.write_text(json.dumps(DOC))
    assert run_cli(["ingest", run, "--warehouse", path]).exit_code == 0
    return path


def cli(run_cli: Any, wh: Path, *args: Any) -> tuple[int, str, str]:
    res = run_cli([*args, "--warehouse", wh])
    assert not res.crashed
    return res.exit_code, res.stdout, res.stderr


def evaluate(run_cli: Any, wh: Path, confidence: str, *extra: str) -> dict[str, Any]:
    code, out, err = cli(
        run_cli,
        wh,
        "evaluate",
        "--input",
        "u",
        "--confidence",
        confidence,
        "--bootstrap-resamples",
        "0",
        "--json",
        *extra,
    )
    assert code == 0, err
    result: dict[str, Any] = json.loads(out)
    return result


def oracle_aurc(conf: Any) -> float:
    """AURC (abs_norm, plateaus, trapezoid with risk(0) = risk of the first plateau) by hand."""
    units = []
    for r in DOC["experiments"][0]["results"]["results"]:
        for n in ITEMS:
            p = r["predicted_items"][n]
            if p is not None:
                units.append((conf(r["item_signals"][n]), abs(p - r["ground_truth_items"][n]) / 3))
    total_n = 8 * len(DOC["experiments"][0]["results"]["results"])
    pts, k, loss = [], 0, 0.0
    for c in sorted({u[0] for u in units}, reverse=True):
        group = [u[1] for u in units if u[0] == c]
        k, loss = k + len(group), loss + sum(group)
        pts.append((k / total_n, loss / k))
    xy = [(0.0, pts[0][1]), *pts]
    return sum((x1 - x0) * (y0 + y1) / 2 for (x0, y0), (x1, y1) in itertools.pairwise(xy))


def mine(s: dict[str, Any]) -> float:
    sim = s["retrieval_similarity_mean"]
    return 0.7 * s["token_msp"] + 0.3 * (0.0 if sim is None else sim)


def test_add_list_remove(wh, run_cli, sql):
    assert cli(run_cli, wh, "csf", "list") == (0, "no csfs yet: riskcov csf add NAME 'EXPR'\n", "")
    assert cli(run_cli, wh, "csf", "add", "mine", EXPR) == (0, f"added csf mine: {SQL}\n", "")
    assert cli(run_cli, wh, "csf", "add", "b2", "token_msp") == (0, "added csf b2: s.token_msp\n", "")
    code, out, err = cli(run_cli, wh, "csf", "list")
    assert (code, err) == (0, "")
    assert [line.split("\t")[:2] for line in out.splitlines()] == [["b2", "token_msp"], ["mine", EXPR]]
    assert sql(wh, "SELECT DISTINCT csf FROM v_csf_confidences WHERE csf IN ('mine', 'b2') ORDER BY csf") == [
        ("b2",),
        ("mine",),
    ]
    assert cli(run_cli, wh, "csf", "remove", "b2") == (0, "removed csf b2\n", "")
    assert sql(wh, "SELECT name, expression FROM user_csfs") == [("mine", EXPR)]
    assert sql(wh, "SELECT count(*) FROM v_csf_confidences WHERE csf = 'b2'") == [(0,)]


def test_named_sql_and_v_metrics_agree_with_the_oracle(wh, run_cli, sql):
    assert cli(run_cli, wh, "csf", "add", "mine", EXPR)[0] == 0
    want = oracle_aurc(mine)
    by_name = evaluate(run_cli, wh, "mine")["confidence_variants"]["mine"]["aurc_full"]
    inline = evaluate(run_cli, wh, f"sql:{EXPR}")["confidence_variants"][f"sql:{EXPR}"]["aurc_full"]
    assert by_name == inline == pytest.approx(want, rel=1e-12)
    assert sql(wh, "SELECT aurc_full FROM v_metrics WHERE csf = 'mine' AND loss = 'abs_norm'") == [
        (pytest.approx(want, rel=1e-12),)
    ]
    every = evaluate(run_cli, wh, "all")["confidence_variants"]
    assert "mine" in every and list(every) == sorted(every)
    pair = evaluate(run_cli, wh, "secondary:mine+token_msp:product")["confidence_variants"]
    expected = oracle_aurc(lambda s: mine(s) * min(max(s["token_msp"], 0.0), 1.0))
    assert pair["secondary:mine+token_msp:product"]["aurc_full"] == pytest.approx(expected, rel=1e-12)


def test_bootstrap_runs_with_external_access_off(wh):
    with open_warehouse(wh) as con:
        result = run(con, Options(inputs=["u"], confidence=f"sql:{EXPR}", bootstrap_resamples=50))
        assert con.execute("SELECT current_setting('enable_external_access')").fetchall() == [(False,)]
    ci = result.artifact["confidence_variants"][f"sql:{EXPR}"]["bootstrap"]["ci95"]["aurc_full"]
    assert ci[0] <= ci[1] and all(math.isfinite(x) for x in ci)
    with open_warehouse(wh) as con:  # a built-in CSF leaves it on
        run(con, Options(inputs=["u"], confidence="llm", bootstrap_resamples=0))
        assert con.execute("SELECT current_setting('enable_external_access')").fetchall() == [(True,)]


def test_null_and_missing_signals_follow_the_columns_read(tmp_path, run_cli):
    people = [person(p) for p in range(1, 5)]
    people[1]["item_signals"]["Tired"]["token_msp"] = None  # participant 2, item 3: predicted
    del people[2]["item_signals"]["Tired"]["llm_evidence_count"]  # participant 3, item 3: predicted
    path = tmp_path / "n.json"
    path.write_text(json.dumps(run_doc("n", people)))
    wh = tmp_path / "n.duckdb"
    code, out, err = cli(
        run_cli,
        wh,
        "evaluate",
        "--input",
        path,
        "--confidence",
        "sql:token_msp * 2",
        "--bootstrap-resamples",
        "0",
    )
    assert (code, out) == (1, "")
    assert err == (
        "error: confidence sql:token_msp * 2 cannot be computed: run n, experiment few_shot, participant 2, "
        "item Tired: the confidence is null (null signal: token_msp) (1 predicted item(s) affected)\n"
    )
    code, out, err = cli(
        run_cli,
        wh,
        "evaluate",
        "--input",
        path,
        "--confidence",
        "sql:llm_evidence_count",
        "--bootstrap-resamples",
        "0",
    )
    assert err == (
        "error: confidence sql:llm_evidence_count cannot be computed: run n, experiment few_shot, "
        "participant 3, item Tired: llm_evidence_count is missing (1 predicted item(s) affected)\n"
    )
    # coalesce is the user's explicit null policy
    assert (
        cli(
            run_cli,
            wh,
            "evaluate",
            "--input",
            path,
            "--confidence",
            "sql:coalesce(token_msp, 0)",
            "--bootstrap-resamples",
            "0",
            "--json",
        )[0]
        == 0
    )


ALLOWED = (
    "allowed: abs, ceil, coalesce, exp, floor, greatest, if, isfinite, isinf, isnan, least, ln, log, "
    "log10, log2, pow, power, round, sign, sqrt"
)
RULE = "use 1 to 64 characters a-z, 0-9 and _, starting with a letter"


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["add", "llm", "token_msp"], 2, "csf name llm: llm is already a built-in confidence selector"),
        (
            ["add", "calibrated", "token_msp"],
            2,
            "csf name calibrated: calibrated is already a built-in confidence selector",
        ),
        (["add", "all", "token_msp"], 2, "csf name all: all is already a built-in confidence selector"),
        (["add", "My", "token_msp"], 2, f"csf name 'My': {RULE}"),
        (["add", "a:b", "token_msp"], 2, f"csf name 'a:b': {RULE}"),
        (["add", "dup", "token_pe"], 2, "csf dup already exists; remove it first (riskcov csf remove dup)"),
        (["add", "x", "read_csv('/etc/passwd')"], 2, f"csf x: function read_csv is not allowed ({ALLOWED})"),
        (
            ["add", "x", "token_msp; DROP TABLE runs"],
            2,
            "csf x: ';' is not allowed: write one expression, not statements",
        ),
        (["add", "x", "(SELECT 1)"], 2, "csf x: subqueries are not allowed"),
        (["add", "x", "token_msp /* hi */"], 2, "csf x: comments are not allowed"),
        (
            ["add", "x", "runs.run_id"],
            2,
            "csf x: column runs.run_id names another table; only item_signals (s) is read",
        ),
        (["add", "x", "getenv('HOME')"], 2, f"csf x: function getenv is not allowed ({ALLOWED})"),
        (
            ["add", "x", "participant_id"],
            2,
            "csf x: column participant_id is not a signal column of item_signals "
            "(signals: llm_evidence_count, keyword_evidence_count, evidence_source, "
            "retrieval_reference_count, retrieval_similarity_mean, retrieval_similarity_max, "
            "verbalized_confidence, token_msp, token_pe, "
            "token_energy, consistency_modal_confidence, consistency_score_std, consistency_na_rate, "
            "consistency_samples, inference_used, inference_type, inference_marker, extra_signals); "
            "as a CSF of per-sample runs: column participant_id is not a score column: a per-sample "
            "CSF reads score columns by CSF name (msp for confidence_msp) and prob",
        ),
        (["remove", "nope"], 1, "csf nope: no such CSF (riskcov csf list shows them)"),
    ],
)
def test_csf_refusals_leave_the_warehouse_unchanged(wh, run_cli, take_snapshot, args, code, message):
    assert cli(run_cli, wh, "csf", "add", "dup", "token_msp")[0] == 0
    before = take_snapshot(wh)
    assert cli(run_cli, wh, "csf", *args) == (code, "", f"error: {message}\n")
    assert take_snapshot(wh) == before


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("ATTACH 'x.db'", "ATTACH statements are not allowed: write one expression"),
        ("COPY runs TO 'x.csv'", "COPY statements are not allowed: write one expression"),
        ("PRAGMA version", "PRAGMA statements are not allowed: write one expression"),
        ("token_msp -- ; DROP TABLE runs", "comments are not allowed"),
        ("read_text('/etc/passwd')", f"function read_text is not allowed ({ALLOWED})"),
    ],
)
def test_hostile_sql_confidence_is_refused_before_anything_runs(wh, run_cli, take_snapshot, expr, message):
    before = take_snapshot(wh)
    code, out, err = cli(run_cli, wh, "evaluate", "--input", "u", "--confidence", f"sql:{expr}")
    assert (code, out, err) == (2, "", f"error: sql:{expr}: {message}\n")
    assert take_snapshot(wh) == before


@pytest.mark.parametrize("value", [0, 6, 5.5, 0.99, -1])
def test_ingest_refuses_verbalized_confidence_outside_1_to_5(tmp_path, run_cli, take_snapshot, value):
    people = [person(p) for p in range(1, 3)]
    people[1]["item_signals"]["Appetite"]["verbalized_confidence"] = value
    path = tmp_path / "v.json"
    path.write_text(json.dumps(run_doc("v", people)))
    wh = tmp_path / "v.duckdb"
    assert cli(run_cli, wh, "ingest", tmp_path / "u_missing.json")[0] != 0  # creates the warehouse
    before = take_snapshot(wh)
    code, out, err = cli(run_cli, wh, "ingest", path)
    assert (code, out) == (1, "")
    assert err == (
        f"error: {path}: experiment few_shot: participant 2: item_signals.Appetite.verbalized_confidence = "
        f"{value!r} is not in 1..5 or null\n"
    )
    assert take_snapshot(wh) == before


def test_ingest_accepts_the_ends_of_the_scale(tmp_path, run_cli, sql):
    people = [person(p) for p in range(1, 3)]
    people[0]["item_signals"]["NoInterest"]["verbalized_confidence"] = 1
    people[1]["item_signals"]["NoInterest"]["verbalized_confidence"] = 5.0
    path = tmp_path / "v.json"
    path.write_text(json.dumps(run_doc("v", people)))
    wh = tmp_path / "v.duckdb"
    assert cli(run_cli, wh, "ingest", path)[0] == 0
    assert sql(
        wh, "SELECT verbalized_confidence FROM item_signals WHERE item_index = 0 ORDER BY participant_id"
    ) == [
        (1.0,),
        (5.0,),
    ]


def test_an_expression_of_no_column_is_a_csf_like_another(wh, run_cli):
    # a constant gave "Binder Error: ... concat_ws(STRING_LITERAL)" (exit 1): the null check's
    # message named the signals read, of which there were none
    assert cli(run_cli, wh, "csf", "add", "flat", "1", "--no-publish") == (
        0,
        "added csf flat: CAST(1.0 AS DOUBLE)\n",
        "",
    )
    # one plateau of every item: AURC is the mean loss, as the oracle computes it
    expected = oracle_aurc(lambda s: 1.0)
    for name in ("flat", "sql:1"):
        assert evaluate(run_cli, wh, name)["confidence_variants"][name]["aurc_full"] == pytest.approx(
            expected, rel=1e-12
        )
    code, _, err = cli(run_cli, wh, "evaluate", "--input", "u", "--confidence", "sql:0/0", "--no-publish")
    people = DOC["experiments"][0]["results"]["results"]
    predicted = sum(p["predicted_items"][n] is not None for p in people for n in ITEMS)
    assert code == 1
    assert err.endswith(f"not a finite number ({predicted} predicted item(s) affected)\n")
