"""`riskcov evaluate` through the typer app: every usage error (exit 2) and data error (exit 1)
with its exact one-line message and no artifact; --json; bootstrap sizes and seeds; the rows
stored in evaluation_metrics and evaluation_curves."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pytest
from metrics_support import (
    BASE_CSFS,
    Config,
    Side,
    assert_same,
    expected_artifact,
    failed,
    participant,
    run_doc,
    write_json,
)


def person(pid: int, salt: int = 0) -> dict[str, Any]:
    """A deterministic participant: items predicted or abstained, evidence counts 0..3."""
    preds = [None if (pid + i + salt) % 3 == 0 else (pid * 7 + i + salt) % 4 for i in range(8)]
    gts = [(pid + 2 * i) % 4 for i in range(8)]
    signals = [
        {"llm_evidence_count": (pid + i * salt) % 4, "token_msp": ((pid + i) % 5) / 4} for i in range(8)
    ]
    return participant(pid, preds, gts, signals)


def people(ok: list[int], bad: list[int], salt: int = 0) -> list[dict[str, Any]]:
    return [person(p, salt) for p in ok] + [failed(p) for p in bad]


@dataclass
class Files:
    """Run files of these tests, the warehouse and the artifact path."""

    one: str  # run "one": one experiment (few_shot), participants 1..5, 6 failed
    two: str  # run "two": zero_shot (1..4 ok, 5 failed) and few_shot (1..3 ok, 4 and 5 failed)
    dup: str  # run "dup": two experiments with mode few_shot
    left: str  # run "left": few_shot, 1, 2, 3 ok, 4 failed
    right: str  # run "right": few_shot, 2, 4, 5 ok, 3 failed
    dead: str  # run "dead": every participant failed
    warehouse: Path
    out: Path

    def docs(self) -> dict[str, dict[str, Any]]:
        return {
            k: json.loads(Path(getattr(self, k)).read_text())
            for k in ("one", "two", "dup", "left", "right", "dead")
        }


@pytest.fixture
def files(tmp_path: Path, warehouse: Path) -> Files:
    docs = {
        "one": run_doc("one", [("few_shot", people([1, 2, 3, 4, 5], [6]))]),
        "two": run_doc(
            "two",
            [
                ("zero_shot", people([1, 2, 3, 4], [5], salt=1)),
                ("few_shot", people([1, 2, 3], [4, 5], salt=2)),
            ],
        ),
        "dup": run_doc("dup", [("few_shot", people([1, 2], [])), ("few_shot", people([1, 2], [], salt=1))]),
        "left": run_doc("left", [("few_shot", people([1, 2, 3], [4]))]),
        "right": run_doc("right", [("few_shot", people([2, 4, 5], [3], salt=3))]),
        "dead": run_doc("dead", [("few_shot", [failed(1), failed(2)])]),
    }
    paths = {k: str(write_json(tmp_path / f"{k}.json", d)) for k, d in docs.items()}
    return Files(**paths, warehouse=warehouse, out=tmp_path / "artifact.json")


Run = Callable[..., Any]


@pytest.fixture
def evaluate(riskcov, files: Files) -> Run:
    """`evaluate(*args)`: `riskcov evaluate *args --output <out> --warehouse <w>`."""

    def go(*args: str | Path) -> Any:
        return riskcov(["evaluate", *args, "--output", files.out, "--warehouse", files.warehouse])

    return go


def stored_evaluations(warehouse: Path) -> int:
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        counts = [
            con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]  # type: ignore[index]
            for t in ("evaluations", "evaluation_metrics", "evaluation_curves")
        ]
    finally:
        con.close()
    return sum(counts)


def assert_error(r: Any, files: Files, exit_code: int, message: str) -> None:
    """One line `error: <message>` on stderr, nothing on stdout, no traceback, no artifact."""
    assert (r.exit_code, r.stdout, r.crashed) == (exit_code, "", False), r.exception
    assert r.stderr == f"error: {message}\n"
    assert not files.out.exists()
    assert stored_evaluations(files.warehouse) == 0


QUICK = ["--bootstrap-resamples", "0"]
CSF_LIST = ", ".join(BASE_CSFS)
# (id, args, exit code, message); "{one}" etc. are the run files of `Files`
ERRORS = [
    (
        "three-inputs",
        ["--input", "{one}", "--input", "{one}", "--input", "{one}"],
        2,
        "at most two --input (a paired comparison) are supported",
    ),
    (
        "mode-count",
        [
            "--input",
            "{two}",
            "--input",
            "{two}",
            "--mode",
            "zero_shot",
            "--mode",
            "few_shot",
            "--mode",
            "few_shot",
        ],
        2,
        "--mode given 3 times for 2 --input: give none, one for all inputs, or one per input",
    ),
    (
        "three-modes-one-input",
        ["--input", "{two}", "--mode", "zero_shot", "--mode", "few_shot", "--mode", "few_shot"],
        2,
        "--mode given 3 times for 1 --input: give none, one for all inputs, or one per input",
    ),
    (
        "unknown-mode",
        ["--input", "{two}", "--mode", "one_shot"],
        1,
        "--input {two}: run two has no experiment with mode one_shot (available: zero_shot, few_shot)",
    ),
    (
        "ambiguous-mode",
        ["--input", "{dup}", "--mode", "few_shot"],
        1,
        "--input {dup}: mode few_shot matches 2 experiments of run dup; it is ambiguous: choose "
        "one by position, --mode '#0' to --mode '#1'",
    ),
    (
        "no-such-position",
        ["--input", "{dup}", "--mode", "#2"],
        1,
        "--input {dup}: run dup has no experiment #2 (available: few_shot, few_shot)",
    ),
    (
        "no-mode",
        ["--input", "{two}"],
        2,
        "--input {two}: run two has 2 experiments (zero_shot, few_shot); choose one with --mode",
    ),
    (
        "loss",
        ["--input", "{one}", "--loss", "mse"],
        2,
        "--loss mse: choose abs or abs_norm (PHQ-8 runs) or given (per-sample runs)",
    ),
    (
        "estimator",
        ["--input", "{one}", "--estimator", "step"],
        2,
        "--estimator step: choose one of plateau-trapezoid, item-step, item-trapezoid",
    ),
    (
        "estimator-bootstrap",
        ["--input", "{one}", "--estimator", "item-step"],
        2,
        "bootstrap CIs are computed for --estimator plateau-trapezoid; pass "
        "--bootstrap-resamples 0 with another estimator",
    ),
    ("area-0", ["--input", "{one}", "--area-coverage", "0"], 2, "--area-coverage 0.0 is not in (0, 1]"),
    ("area-1.5", ["--input", "{one}", "--area-coverage", "1.5"], 2, "--area-coverage 1.5 is not in (0, 1]"),
    ("area-nan", ["--input", "{one}", "--area-coverage", "nan"], 2, "--area-coverage nan is not in (0, 1]"),
    (
        "grid-0",
        ["--input", "{one}", "--coverage-grid", "0.5,0"],
        2,
        "--coverage-grid value 0.0 is not in (0, 1]",
    ),
    (
        "grid-1.2",
        ["--input", "{one}", "--coverage-grid", "1.2"],
        2,
        "--coverage-grid value 1.2 is not in (0, 1]",
    ),
    (
        "grid-a",
        ["--input", "{one}", "--coverage-grid", "0.1,a"],
        2,
        "--coverage-grid 0.1,a: give comma-separated numbers, e.g. 0.1,0.2",
    ),
    (
        "grid-empty",
        ["--input", "{one}", "--coverage-grid", ""],
        2,
        "--coverage-grid needs at least one value",
    ),
    (
        "grid-same-key",
        ["--input", "{one}", "--coverage-grid", "0.1,0.104"],
        2,
        "--coverage-grid values must differ in their first two decimals",
    ),
    (
        "alpha-negative",
        ["--input", "{one}", "--alpha-grid", "0.1,-0.1"],
        2,
        "--alpha-grid -0.1 is outside [0, 1], the selective risk's range for loss abs_norm/given "
        "(--loss abs: [0, 3])",
    ),
    (
        "alpha-same-key",
        ["--input", "{one}", "--alpha-grid", "0.01,0.011"],
        2,
        "--alpha-grid values must differ in their first two decimals",
    ),
    ("alpha-empty", ["--input", "{one}", "--alpha-grid", ","], 2, "--alpha-grid needs at least one value"),
    (
        "too-many-resamples",
        ["--input", "{one}", "--bootstrap-resamples", "10000001"],
        2,
        "--bootstrap-resamples 10000001 is more than 10,000,000",
    ),
    (
        "alpha-a",
        ["--input", "{one}", "--alpha-grid", "x"],
        2,
        "--alpha-grid x: give comma-separated numbers, e.g. 0.1,0.2",
    ),
    (
        "confidence",
        ["--input", "{one}", "--confidence", "bogus"],
        2,
        f"--confidence bogus: unknown confidence function; choose default, all, one of "
        f"{CSF_LIST}, or secondary:<a>+<b>:average|product",
    ),
    (
        "secondary-part",
        ["--input", "{one}", "--confidence", "secondary:llm+bogus:average"],
        2,
        "--confidence secondary:llm+bogus:average: bogus is not a base confidence function",
    ),
    (
        "secondary-how",
        ["--input", "{one}", "--confidence", "secondary:llm+token_msp:max"],
        2,
        f"--confidence secondary:llm+token_msp:max: unknown confidence function; choose "
        f"default, all, one of {CSF_LIST}, or secondary:<a>+<b>:average|product",
    ),
    ("seed-negative", ["--input", "{one}", "--seed", "-1"], 2, "--seed -1 is not in 0..2**32-1"),
    (
        "seed-too-big",
        ["--input", "{one}", "--seed", "4294967296"],
        2,
        "--seed 4294967296 is not in 0..2**32-1",
    ),
    (
        "sets-differ",
        ["--input", "{left}", "--input", "{right}"],
        1,
        "participant sets differ (1 only in the left input, 1 only in the right); pass "
        "--intersection-only to compare the overlap",
    ),
    (
        "no-such-input",
        ["--input", "{missing}"],
        1,
        "--input {missing}: no such file, and no run with that run_id in the warehouse",
    ),
]


def fill(text: str, files: Files) -> str:
    return text.format(
        **{k: getattr(files, k) for k in ("one", "two", "dup", "left", "right", "dead")},
        missing=str(files.out.parent / "missing.json"),
    )


@pytest.mark.parametrize(
    ("args", "exit_code", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS]
)
def test_error(evaluate: Run, files: Files, args: list[str], exit_code: int, message: str) -> None:
    r = evaluate(*[fill(a, files) for a in args])
    assert_error(r, files, exit_code, fill(message, files))


def test_error_with_json_prints_nothing_on_stdout(evaluate: Run, files: Files) -> None:
    r = evaluate("--input", files.two, "--mode", "one_shot", "--json")
    assert_error(
        r,
        files,
        1,
        f"--input {files.two}: run two has no experiment with mode one_shot (available: zero_shot, few_shot)",
    )


def test_missing_input_is_a_usage_error(evaluate: Run, files: Files) -> None:
    r = evaluate()
    assert (r.exit_code, r.stdout, r.crashed) == (2, "", False)
    assert not files.out.exists()


@pytest.mark.parametrize(
    "args", [[], ["--input", "{one}", "--seed", "abc"]], ids=["missing-input", "seed-abc"]
)
def test_click_usage_errors_are_one_line(evaluate: Run, files: Files, args: list[str]) -> None:
    r = evaluate(*[fill(a, files) for a in args])
    assert (r.exit_code, r.stdout, r.crashed) == (2, "", False)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    if not args:
        assert lines == ["error: --input is required (a run file path or an ingested run_id)"]
    else:
        assert lines == [
            "error: Invalid value for '--seed': Input should be a valid integer, "
            "unable to parse string as an integer"
        ]


@pytest.mark.parametrize("value", ["inf", "nan"])
def test_non_finite_alpha_is_a_usage_error(evaluate: Run, files: Files, value: str) -> None:
    r = evaluate("--input", files.one, "--alpha-grid", value, *QUICK)
    assert (r.exit_code, r.stdout, r.crashed) == (2, "", False)
    assert r.stderr == (
        f"error: --alpha-grid {value} is outside [0, 1], the selective risk's range for loss "
        "abs_norm/given (--loss abs: [0, 3])\n"
    )
    assert r.stderr.count("\n") == 1
    assert not files.out.exists()


def test_paired_inputs_without_a_common_successful_participant(evaluate: Run, files: Files) -> None:
    both_failed = run_doc("l2", [("few_shot", people([1], [2]))])
    other = run_doc("r2", [("few_shot", people([2], [1]))])
    a = write_json(files.out.parent / "l2.json", both_failed)
    b = write_json(files.out.parent / "r2.json", other)
    r = evaluate("--input", a, "--input", b, "--json")
    assert (r.exit_code, r.stderr) == (0, "")
    art = json.loads(r.stdout)
    assert art["population"] == {
        "participants_total": 2,
        "participants_included": 0,
        "participants_failed": 2,
        "items_total": 0,
    }
    assert art["comparison"]["deltas"]["llm"]["aurc_full"] == {"delta": 0.0, "ci95": [0.0, 0.0]}


def test_a_bad_run_file_is_refused_on_the_fly(evaluate: Run, files: Files) -> None:
    doc = run_doc("bad", [("few_shot", [participant(1, [7] + [1] * 7, [0] * 8)])])
    bad = write_json(files.out.parent / "bad.json", doc)
    r = evaluate("--input", bad)
    assert_error(
        r,
        files,
        1,
        f"{bad}: experiment few_shot: participant 1: predicted_items.NoInterest = 7 is not 0..3 or null",
    )
    assert rows(files.warehouse, "SELECT count(*) FROM runs", []) == [(0,)]


# ---------------------------------------------------------------- successful runs


def artifact_of(r: Any, files: Files) -> dict[str, Any]:
    assert (r.exit_code, r.stderr, r.exception) == (0, "", None)
    return json.loads(files.out.read_text())


def test_json_puts_exactly_the_artifact_on_stdout(evaluate: Run, files: Files) -> None:
    r = evaluate("--input", files.one, "--json", "--bootstrap-resamples", "5", "--confidence", "default")
    art = artifact_of(r, files)

    def strict(text: str) -> None:
        raise AssertionError(f"{text} in the artifact")

    assert json.loads(r.stdout, parse_constant=strict) == art
    assert r.stdout == files.out.read_text()  # the same text, nothing before or after


def test_without_json_the_summary_ends_with_the_artifact_path(evaluate: Run, files: Files) -> None:
    r = evaluate("--input", files.one, *QUICK)
    artifact_of(r, files)
    assert r.stdout.splitlines()[-1] == f"artifact: {files.out}"


def oracle(files: Files, specs: list[tuple[str, str]], **kw: Any) -> dict[str, Any]:
    """The oracle's artifact for inputs given as (run key of Files, mode)."""
    docs = files.docs()
    sides = []
    for name, mode in specs:
        doc = docs[name]
        exp = next(e for e in doc["experiments"] if e["provenance"]["mode"] == mode)
        sides.append(
            Side(
                getattr(files, name), doc["run_metadata"]["run_id"], "c0ffee", mode, exp["results"]["results"]
            )
        )
    return expected_artifact(sides, **kw)


@pytest.mark.parametrize("b", ["0", "-3"])
def test_no_resamples_means_no_bootstrap(evaluate: Run, files: Files, b: str) -> None:
    art = artifact_of(
        evaluate(
            "--input",
            files.two,
            "--input",
            files.two,
            "--mode",
            "zero_shot",
            "--mode",
            "few_shot",
            "--bootstrap-resamples",
            b,
            "--seed",
            "7",
        ),
        files,
    )
    assert art["options"]["bootstrap_resamples"] == 0
    assert art["options"]["seed"] == 7
    for side in art["confidence_variants"]["llm"].values():
        assert side["bootstrap"] == {}
    for d in art["comparison"]["deltas"]["llm"].values():
        assert d["ci95"] == (None if d["delta"] is None else [d["delta"], d["delta"]])
    assert_same(
        oracle(
            files,
            [("two", "zero_shot"), ("two", "few_shot")],
            confidence="default",
            cfg=Config(),
            n_resamples=0,
            seed=7,
        ),
        art,
    )


def test_one_resample_collapses_every_ci_to_the_point(evaluate: Run, files: Files) -> None:
    art = artifact_of(
        evaluate(
            "--input",
            files.two,
            "--input",
            files.two,
            "--mode",
            "zero_shot",
            "--mode",
            "few_shot",
            "--bootstrap-resamples",
            "1",
            "--seed",
            "3",
            "--confidence",
            "llm",
        ),
        files,
    )
    for m in art["confidence_variants"]["llm"].values():
        boot = m["bootstrap"]
        assert (boot["seed"], boot["n_resamples"]) == (3, 1)
        for k in ("aurc_full", "augrc_full", "cmax", "aurc_optimal", "augrc_optimal", "eaurc", "eaugrc"):
            assert boot["ci95"][k] == [m[k], m[k]]
        for k in ("aurc_at_c", "augrc_at_c"):
            assert boot["ci95"][k] == [m[k]["value"], m[k]["value"]]
        for key, point in m["mae_at_coverage"].items():
            want = None if point is None else [point["value"], point["value"]]
            assert boot["ci95"]["mae_at_coverage"][key] == want
        for key, point in m["coverage_at_risk"].items():
            assert boot["ci95"]["coverage_at_risk"][key] == [point["coverage"]] * 2
    for d in art["comparison"]["deltas"]["llm"].values():
        assert d["ci95"] == (None if d["delta"] is None else [d["delta"], d["delta"]])
    # drop rates (0 or 1 with one replicate) and everything else: the oracle
    assert_same(
        oracle(
            files,
            [("two", "zero_shot"), ("two", "few_shot")],
            confidence="llm",
            cfg=Config(),
            n_resamples=1,
            seed=3,
        ),
        art,
    )


def test_the_same_seed_gives_the_same_artifact(evaluate: Run, files: Files) -> None:
    args = ["--input", files.one, "--bootstrap-resamples", "40", "--seed", "123"]
    first = artifact_of(evaluate(*args), files)
    second = artifact_of(evaluate(*args), files)
    first.pop("created_at")
    second.pop("created_at")
    assert first == second
    assert first["options"]["seed"] == 123
    assert {m["bootstrap"]["seed"] for m in first["confidence_variants"].values()} == {123}
    assert_same(
        oracle(files, [("one", "few_shot")], confidence="default", cfg=Config(), n_resamples=40, seed=123),
        first,
        ignore=[],
    )


def test_default_seed_is_42_and_recorded(evaluate: Run, files: Files) -> None:
    art = artifact_of(
        evaluate("--input", files.one, "--bootstrap-resamples", "3", "--confidence", "llm"), files
    )
    assert art["options"]["seed"] == 42
    assert art["confidence_variants"]["llm"]["bootstrap"]["seed"] == 42
    assert_same(
        oracle(files, [("one", "few_shot")], confidence="llm", cfg=Config(), n_resamples=3, seed=42), art
    )


def test_intersection_only(evaluate: Run, files: Files) -> None:
    art = artifact_of(
        evaluate(
            "--input",
            files.left,
            "--input",
            files.right,
            "--intersection-only",
            "--bootstrap-resamples",
            "9",
            "--seed",
            "5",
            "--loss",
            "abs",
        ),
        files,
    )
    # left {1, 2, 3 ok; 4 failed}, right {2, 4, 5 ok; 3 failed}: overlap {2, 3, 4}, only 2
    # succeeds on both sides
    assert {k: v for k, v in art["comparison"].items() if k != "deltas"} == {
        "enabled": True,
        "intersection_only": True,
        "participants_left_only": 1,
        "participants_right_only": 1,
        "participants_overlap_total": 3,
        "participants_overlap_included": 1,
        "participants_failed_left": 1,
        "participants_failed_right": 1,
    }
    assert art["population"]["participants_total"] == 3
    assert art["population"]["participants_included"] == 1
    assert art["population"]["participants_failed"] == 2
    assert art["population"]["items_total"] == 8
    assert_same(
        oracle(
            files,
            [("left", "few_shot"), ("right", "few_shot")],
            confidence="default",
            cfg=Config(loss="abs"),
            n_resamples=9,
            seed=5,
            intersection_only=True,
        ),
        art,
    )


def test_an_input_given_by_run_id(evaluate: Run, files: Files) -> None:
    by_path = artifact_of(evaluate("--input", files.one, *QUICK), files)
    by_id = artifact_of(evaluate("--input", "one", *QUICK), files)
    assert by_id["inputs"] == [{**by_path["inputs"][0], "path": "one"}]
    for art in (by_path, by_id):
        art.pop("created_at")
        art.pop("inputs")
    assert by_id == by_path


def test_one_mode_for_two_inputs_applies_to_both(evaluate: Run, files: Files) -> None:
    art = artifact_of(
        evaluate(
            "--input", files.two, "--input", files.one, "--mode", "few_shot", "--intersection-only", *QUICK
        ),
        files,
    )
    assert [(i["run_id"], i["mode"]) for i in art["inputs"]] == [("two", "few_shot"), ("one", "few_shot")]


def rows(warehouse: Path, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def test_stored_rows_match_the_artifact(evaluate: Run, files: Files) -> None:
    art = artifact_of(
        evaluate(
            "--input",
            files.two,
            "--input",
            files.two,
            "--mode",
            "zero_shot",
            "--mode",
            "few_shot",
            "--bootstrap-resamples",
            "20",
            "--seed",
            "9",
            "--confidence",
            "llm",
            "--coverage-grid",
            "0.1,0.9",
        ),
        files,
    )
    ((eid, path),) = rows(files.warehouse, "SELECT evaluation_id, artifact_path FROM evaluations", [])
    assert path == str(files.out)

    def metric(label: str, name: str) -> tuple[Any, ...]:
        (row,) = rows(
            files.warehouse,
            "SELECT value, ci_low, ci_high FROM evaluation_metrics "
            "WHERE evaluation_id = ? AND input = ? AND csf = 'llm' AND metric = ?",
            [eid, label, name],
        )
        return row

    for label in ("input_0", "input_1"):
        m = art["confidence_variants"]["llm"][label]
        assert metric(label, "aurc_full") == (m["aurc_full"], *m["bootstrap"]["ci95"]["aurc_full"])
        assert metric(label, "aurc_at_c") == (m["aurc_at_c"]["value"], *m["bootstrap"]["ci95"]["aurc_at_c"])
        # MAE@0.9 is beyond Cmax: a NULL value and a NULL interval
        assert m["mae_at_coverage"]["0.90"] is None
        assert metric(label, "mae_at_coverage_0.90") == (None, None, None)
        curve = m["curve"]
        stored = rows(
            files.warehouse,
            "SELECT point, coverage, selective_risk, "
            "generalized_risk, threshold FROM evaluation_curves WHERE evaluation_id"
            " = ? AND input = ? AND csf = 'llm' ORDER BY point",
            [eid, label],
        )
        assert stored == list(
            zip(
                range(1, len(curve["coverage"]) + 1),
                curve["coverage"],
                curve["selective_risk"],
                curve["generalized_risk"],
                curve["threshold"],
                strict=True,
            )
        )
    d = art["comparison"]["deltas"]["llm"]["aurc_full"]
    assert metric("delta", "aurc_full") == (d["delta"], *d["ci95"])
    d = art["comparison"]["deltas"]["llm"]["cmax"]
    assert metric("delta", "cmax") == (d["delta"], *d["ci95"])


def test_a_failed_evaluation_keeps_no_input_it_ingested(evaluate: Run, files: Files) -> None:
    r = evaluate("--input", files.two, "--mode", "one_shot")
    assert r.exit_code == 1
    con = duckdb.connect(str(files.warehouse), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM runs").fetchall() == [(0,)]
    finally:
        con.close()


def test_an_experiment_chosen_by_position(evaluate: Run, files: Files) -> None:
    arts = []
    for position in ("#0", "#1"):
        r = evaluate("--input", files.dup, "--mode", position, *QUICK, "--json")
        assert r.exit_code == 0, r.stderr
        arts.append(json.loads(r.stdout))
    ids = [a["inputs"][0]["experiment_id"] for a in arts]
    assert ids[1] == ids[0] + 1  # experiments are numbered in file order
    assert [(i["mode"], i["run_id"]) for a in arts for i in a["inputs"]] == [("few_shot", "dup")] * 2
    # the two experiments hold different predictions, so their metrics tell them apart
    docs = files.docs()["dup"]["experiments"]
    for art, exp in zip(arts, docs, strict=True):
        side = Side(files.dup, "dup", "c0ffee", "few_shot", exp["results"]["results"])
        want = expected_artifact([side], confidence="default", cfg=Config(), n_resamples=0, seed=42)
        assert art["confidence_variants"]["llm"]["aurc_full"] == pytest.approx(
            want["confidence_variants"]["llm"]["aurc_full"].value, rel=1e-12
        )
    assert arts[0]["confidence_variants"]["llm"]["aurc_full"] != pytest.approx(
        arts[1]["confidence_variants"]["llm"]["aurc_full"]
    )


def test_one_input_with_two_modes_is_a_paired_comparison(evaluate: Run, files: Files) -> None:
    one = evaluate("--input", files.two, "--mode", "zero_shot", "--mode", "few_shot", *QUICK, "--json")
    two = evaluate(
        "--input",
        files.two,
        "--input",
        files.two,
        "--mode",
        "zero_shot",
        "--mode",
        "few_shot",
        *QUICK,
        "--json",
    )
    assert (one.exit_code, two.exit_code) == (0, 0)
    a, b = json.loads(one.stdout), json.loads(two.stdout)
    for art in (a, b):
        art.pop("created_at")
    assert a == b
    assert a["comparison"]["enabled"] is True


def test_all_participants_failed_gives_zero_metrics(evaluate: Run, files: Files) -> None:
    r = evaluate("--input", files.dead, "--bootstrap-resamples", "20", "--json")
    assert (r.exit_code, r.stderr) == (0, "")
    art = json.loads(r.stdout)
    assert art["population"] == {
        "participants_total": 2,
        "participants_included": 0,
        "participants_failed": 2,
        "items_total": 0,
        "items_predicted": 0,
        "cmax": 0.0,
    }
    m = art["confidence_variants"]["llm"]
    assert [m[k] for k in ("cmax", "aurc_full", "augrc_full", "aurc_optimal", "eaurc")] == [0.0] * 5
    assert set(m["mae_at_coverage"].values()) == {None}
    assert m["bootstrap"]["ci95"]["aurc_full"] == [0.0, 0.0]


def test_an_unwritable_output_is_one_line_and_leaves_nothing(riskcov, files: Files) -> None:
    folder = files.out.parent
    r = riskcov(
        ["evaluate", "--input", files.one, *QUICK, "--output", folder, "--warehouse", files.warehouse]
    )
    assert (r.exit_code, r.stdout, r.crashed) == (2, "", False)
    assert r.stderr == (
        f"error: --output {folder}: cannot write the artifact: it is a folder; give a file name or a "
        "character device\n"
    )
    assert stored_evaluations(files.warehouse) == 0
    assert not (folder.parent / (folder.name + ".tmp")).exists()
