"""Every command that takes a risk budget refuses one outside its range the same way: one line
naming the flag, the value and the range, exit 2, the warehouse unchanged
(docs/reliability.md). Grid values (Coverage@Risk) lie in [0, top]; certified levels in (0, 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import riskcov
from riskcov.errors import UsageError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RUN = EXAMPLES / "example_run.json"
SAMPLES = "selective_samples"  # the per-sample example's run_id
GRID = "the selective risk's range for loss"


CASES = [
    # (command and flags, shown value, range, what follows the range)
    (
        ["evaluate", "--input", RUN, "--alpha-grid", "0.1,1.5"],
        "1.5",
        "[0, 1]",
        f", {GRID} abs_norm/given (--loss abs: [0, 3])",
    ),
    (
        ["evaluate", "--input", RUN, "--alpha-grid", "-0.01"],
        "-0.01",
        "[0, 1]",
        f", {GRID} abs_norm/given (--loss abs: [0, 3])",
    ),
    (["evaluate", "--input", RUN, "--loss", "abs", "--alpha-grid", "3.5"], "3.5", "[0, 3]", f", {GRID} abs"),
    (
        ["evaluate", "--input", SAMPLES, "--alpha-grid", "nan"],
        "nan",
        "[0, 1]",
        f", {GRID} abs_norm/given (--loss abs: [0, 3])",
    ),
    (["scod", "--input", SAMPLES, "--alpha-grid", "1.5"], "1.5", "[0, 1]", ", the range of the SCOD risk"),
    (["risk-control", "--input", SAMPLES, "--alpha", "0.1,1.5"], "1.5", "(0, 1)", ""),
    (["risk-control", "--input", SAMPLES, "--alpha", "0"], "0.0", "(0, 1)", ""),
    (["risk-control", "--input", SAMPLES, "--risk", "selective:1"], "1.0", "(0, 1)", ""),
    (["risk-control", "--input", SAMPLES, "--risk", "coverage_loss:-0.5"], "-0.5", "(0, 1)", ""),
    (["risk-control", "--input", SAMPLES, "--delta", "1"], "1.0", "(0, 1)", ""),
    (["compare", "--input", SAMPLES, "--alpha", "1.5"], "1.5", "(0, 1)", ""),
]


def _flag(args: list) -> str:
    flag = next(a for a in reversed(args) if isinstance(a, str) and a.startswith("--") and a != "--loss")
    if flag == "--risk":
        return f"--risk {args[-1].partition(':')[0]} level"
    return flag


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> Path:
    """A warehouse holding the per-sample example."""
    from typer.testing import CliRunner

    from riskcov.cli import app

    path = tmp_path_factory.mktemp("budgets") / "w.duckdb"
    r = CliRunner().invoke(
        app, ["ingest", str(EXAMPLES / "selective_samples.parquet"), "--warehouse", str(path)]
    )
    assert r.exit_code == 0, r.output
    return path


@pytest.mark.parametrize(("args", "value", "interval", "note"), CASES)
def test_each_command_refuses_a_budget_outside_its_range(
    run_cli, take_snapshot, stored, tmp_path, args, value, interval, note
):
    wh = tmp_path / "w.duckdb"
    wh.write_bytes(stored.read_bytes())
    before = take_snapshot(wh)
    r = run_cli([*args, "--warehouse", wh])
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == f"error: {_flag(args)} {value} is outside {interval}{note}\n"
    assert take_snapshot(wh) == before


def test_the_edges_of_a_grid_are_budgets(run_cli, tmp_path):
    """0 and the top are inside a grid: coverage at zero risk, and full coverage."""
    r = run_cli(
        [
            "evaluate",
            "--input",
            RUN,
            "--mode",
            "zero_shot",
            "--alpha-grid",
            "0,1",
            "--bootstrap-resamples",
            "0",
            "--warehouse",
            tmp_path / "w",
        ]
    )
    assert r.exit_code == 0, r.stderr


def test_sql_refuses_a_budget_outside_its_range(run_cli):
    r = run_cli(["sql", "--table", "t", "--alpha-grid", "2"])
    assert (r.exit_code, r.stdout) == (2, "")
    assert (
        r.stderr
        == "error: --alpha-grid 2.0 is outside [0, 1], the selective risk's range after --loss-scale\n"
    )


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--loss-scale", "inf", "--loss-scale inf is not a finite number > 0"),
        ("--loss-scale", "0", "--loss-scale 0.0 is not a finite number > 0"),
        ("--coverage-grid", "0.5,inf", "--coverage-grid value inf is not in (0, 1]"),
        ("--coverage-grid", "1.5", "--coverage-grid value 1.5 is not in (0, 1]"),
        ("--costs", "1,inf", "--costs value inf is not a finite number >= 0"),
        ("--costs", "-1", "--costs value -1.0 is not a finite number >= 0"),
        # given empty, a grid was read as its default: the queries of 0.1,...,0.9 for none asked
        ("--coverage-grid", "", "--coverage-grid needs at least one value"),
        ("--alpha-grid", ",", "--alpha-grid needs at least one value"),
        ("--costs", "", "--costs needs at least one value"),
    ],
)
def test_sql_refuses_what_evaluate_refuses(option, value, message, run_cli):
    """`sql` printed `CAST(inf AS DOUBLE)` (a column named inf) or a coverage above 1."""
    metrics = ["--metric", "mae_at_coverage", "--metric", "effective_reliability"]
    r = run_cli(["sql", "--table", "t", *metrics, option, value])
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", f"error: {message}\n")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda wh: wh.evaluate(SAMPLES, resamples=0, alpha_grid=[1.5]),
            f"--alpha-grid 1.5 is outside [0, 1], {GRID} abs_norm/given (--loss abs: [0, 3])",
        ),
        (lambda wh: wh.risk_control(SAMPLES, alphas=[1.5]), "--alpha 1.5 is outside (0, 1)"),
        (
            lambda wh: wh.risk_control(SAMPLES, risks=["selective:2"]),
            "--risk selective level 2.0 is outside (0, 1)",
        ),
        (lambda wh: wh.risk_control(SAMPLES, delta=0.0), "--delta 0.0 is outside (0, 1)"),
        (lambda wh: wh.compare(SAMPLES, alpha=1.0), "--alpha 1.0 is outside (0, 1)"),
    ],
)
def test_the_python_api_refuses_the_same_way(stored, tmp_path, call, message):
    wh = tmp_path / "w.duckdb"
    wh.write_bytes(stored.read_bytes())
    with pytest.raises(UsageError) as raised:
        call(riskcov.Warehouse(wh))
    assert str(raised.value) == message


def test_riskcov_evaluate_refuses_the_same_way():
    with pytest.raises(UsageError) as raised:
        riskcov.evaluate({"confidence": [0.9, 0.1], "correct": [1, 0]}, resamples=0, alpha_grid=[-1.0])
    assert (
        str(raised.value)
        == f"--alpha-grid -1.0 is outside [0, 1], {GRID} abs_norm/given (--loss abs: [0, 3])"
    )


def _costs(n: int) -> str:
    return ",".join(f"{i / 100:.2f}" for i in range(n))


@pytest.mark.parametrize("command", ["evaluate", "sql"])
def test_more_than_100_costs_are_refused_before_any_work(command, tmp_path, run_cli):
    """--costs had no bound: 20,000 costs ran an evaluation of 41 participants past 2 minutes at
    1.7 GB (the memory estimate does not count costs)."""
    args = (
        ["evaluate", "--input", RUN, "--mode", "few_shot", "--warehouse", tmp_path / "w.duckdb"]
        if command == "evaluate"
        else ["sql", "--table", "t", "--metric", "effective_reliability"]
    )
    r = run_cli([*args, "--costs", _costs(101)])
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", "error: --costs: 101 values; at most 100\n")
    assert not (tmp_path / "w.duckdb").exists()


def test_more_than_100_risk_control_alphas_are_refused_before_any_work(tmp_path, run_cli):
    """risk-control --alpha had no bound: each level certifies every method and seed again."""
    alphas = ",".join(f"{0.001 * (i + 1):.3f}" for i in range(101))
    args = ["risk-control", "--input", SAMPLES, "--warehouse", tmp_path / "w.duckdb", "--alpha", alphas]
    r = run_cli(args)
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", "error: --alpha: 101 values; at most 100\n")
    assert not (tmp_path / "w.duckdb").exists()


def test_100_costs_are_evaluated(tmp_path, run_cli):
    path = tmp_path / "s.csv"
    path.write_text("sample_id,confidence,correct\n1,0.9,1\n2,0.8,0\n3,0.3,1\n")
    args = ["evaluate", "--input", path, "--bootstrap-resamples", "0", "--json", "--costs", _costs(100)]
    r = run_cli([*args, "--warehouse", tmp_path / "w.duckdb"])
    assert r.exit_code == 0, r.stderr
    assert len(json.loads(r.stdout)["confidence_variants"]["confidence"]["effective_reliability"]) == 100


@pytest.mark.parametrize("command", ["evaluate", "sql"])
def test_no_costs_is_refused(command, tmp_path, run_cli):
    """`evaluate --costs ""` gave an artifact without effective reliability; `sql` the default costs."""
    args = (
        ["evaluate", "--input", RUN, "--mode", "few_shot", "--warehouse", tmp_path / "w.duckdb"]
        if command == "evaluate"
        else ["sql", "--table", "t", "--metric", "effective_reliability"]
    )
    r = run_cli([*args, "--costs", ""])
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", "error: --costs needs at least one value\n")
    assert not (tmp_path / "w.duckdb").exists()
