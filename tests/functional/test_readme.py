"""The README and the SQL cookbook stay true: the README's quick start runs as written, every
documented query runs, and the warehouse views agree with `evaluate`."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from docs_support import blocks, sql_blocks

from riskcov.evaluation import run as evaluate
from riskcov.evaluation.prepared_warehouse import open_warehouse

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = REPO_ROOT / "examples" / "example_run.json"


def test_the_readme_query_is_the_cookbooks_first_and_the_pages_hold_four():
    (readme,) = blocks("README.md", "sql")
    assert readme == blocks("docs/sql.md", "sql")[0]
    assert len(blocks("docs/sql.md", "sql")) == 3
    assert len(blocks("docs/risk-control.md", "sql")) == 1


def _quick_start() -> tuple[str, list[list[str]]]:
    """The README's quick start: its CSV block and every `riskcov` line of its bash blocks."""
    text = (REPO_ROOT / "README.md").read_text()
    section = text.split("## Quick start")[1].split("\n## ")[0]
    commands = [
        shlex.split(line)
        for block in re.findall(r"```bash\n(.*?)```", section, re.S)
        for line in block.splitlines()
        if line.startswith("riskcov ")
    ]
    (csv,) = re.findall(r"```csv\n(.*?)```", section, re.S)
    return csv, commands


def test_readme_quick_start_runs_as_written(tmp_path, run_cli, monkeypatch):
    csv, commands = _quick_start()
    assert len(commands) >= 8
    monkeypatch.chdir(tmp_path)
    os.symlink(REPO_ROOT / "examples", tmp_path / "examples")
    (tmp_path / "preds.csv").write_text(csv)
    env = {"RISKCOV_WAREHOUSE": str(tmp_path / "warehouse" / "riskcov.duckdb")}
    for args in commands:
        result = run_cli(args[1:], env=env)
        assert (result.exit_code, result.stderr) == (0, ""), args
    for written in ("few_shot.json", "paired.json", "report.html", "preds.json"):
        assert (tmp_path / written).stat().st_size > 0, written


def test_readme_sql_runs_and_views_match_evaluate(tmp_path):
    wh = tmp_path / "w.duckdb"
    with open_warehouse(wh) as con:
        single = evaluate.run(
            con,
            evaluate.Options(
                inputs=[str(EXAMPLE)], modes=["few_shot"], confidence="llm", bootstrap_resamples=0
            ),
        ).artifact
        # stored as the CLI stores it, for the delta query
        paired = evaluate.evaluate_and_store(
            con,
            evaluate.Options(
                inputs=[str(EXAMPLE)] * 2,
                modes=["zero_shot", "few_shot"],
                confidence="llm",
                bootstrap_resamples=20,
            ),
            tmp_path / "a.json",
            wh,
        ).artifact
    con = duckdb.connect(str(wh), read_only=True)
    queries = blocks("docs/sql.md", "sql")
    aurc, deltas, abstention = (con.execute(q).fetchall() for q in queries)
    m = single["confidence_variants"]["llm"]
    assert len(aurc) == 1
    run_id, _, csf, cmax, aurc_full, augrc_full, eaurc = aurc[0]
    assert (run_id, csf) == (single["inputs"][0]["run_id"], "llm")
    assert cmax == pytest.approx(m["cmax"], rel=1e-12)
    assert aurc_full == pytest.approx(m["aurc_full"], rel=1e-12)
    assert augrc_full == pytest.approx(m["augrc_full"], rel=1e-12)
    assert eaurc == pytest.approx(m["eaurc"], rel=1e-12)
    d = paired["comparison"]["deltas"]["llm"]["aurc_full"]
    assert [(row[2], row[3], row[4], row[5]) for row in deltas] == [
        (
            "llm",
            pytest.approx(d["delta"], rel=1e-12),
            pytest.approx(d["ci95"][0], rel=1e-12),
            pytest.approx(d["ci95"][1], rel=1e-12),
        )
    ]
    assert len(abstention) == 16  # 2 modes x 8 items
    con.close()


def test_readme_violation_rate_query_matches_risk_control(tmp_path):
    import importlib.util

    from riskcov.riskcontrol import suite

    spec = importlib.util.spec_from_file_location("gen", REPO_ROOT / "scripts" / "make_samples_example.py")
    assert spec and spec.loader
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    data = tmp_path / "small.parquet"
    gen.write(data, gen.make_columns(seed=3, samples=300))
    (query,) = [q for q in sql_blocks() if "risk_control_results" in q]
    wh = tmp_path / "w.duckdb"
    with open_warehouse(wh) as con:
        docs = [
            suite.risk_control_and_store(con, suite.Options(inputs=[str(data)], alphas=alphas))
            for alphas in ([0.1], [0.2, 0.1])
        ]
        got = con.execute(query).fetchall()
    expected = [
        (d["command_id"], s["method"], s["rule"], s["num_seeds"], s["violation_rate"])
        for d in docs
        for s in sorted(d["summary"], key=lambda s: (s["method"], s["rule"]))
        if s["alpha"] == 0.1
    ]
    assert [(c, m, r, n, pytest.approx(v, abs=1e-15)) for c, _, m, r, n, v in got] == expected
    assert len(got) == 18  # 2 commands x 3 methods x 3 rules


def test_readme_main_job_runs_as_written(tmp_path, run_cli, monkeypatch):
    """The first of "the two commands": its riskcov part, after the venv is made."""
    text = (REPO_ROOT / "README.md").read_text()
    section = text.split("## The two commands")[1].split("\n## ")[0]
    main_job, tests = re.findall(r"```bash\n(.*?)```", section, re.S)
    assert tests.strip().endswith(".venv/bin/pytest")
    args = shlex.split(main_job.split("&& .venv/bin/riskcov ")[-1])
    monkeypatch.chdir(tmp_path)
    os.symlink(REPO_ROOT / "examples", tmp_path / "examples")
    result = run_cli(args, env={"RISKCOV_WAREHOUSE": None})
    assert (result.exit_code, result.stderr) == (0, "")
    (artifact,) = (tmp_path / "warehouse" / "artifacts").glob("*.json")
    assert '"n_resamples": 2000' in artifact.read_text()


# imports nothing of pandas, polars or pyarrow: the README's Python block needs only riskcov
WITHOUT_FRAMES = """
import sys
class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pandas", "polars", "pyarrow"):
            raise ImportError(f"{name} is not installed here")
sys.meta_path.insert(0, Blocked())
"""


def test_readme_python_runs_as_written_without_optional_packages(tmp_path):
    (block,) = blocks("README.md", "python")
    script = tmp_path / "readme.py"
    script.write_text(WITHOUT_FRAMES + block)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    aurc, ci = done.stdout.splitlines()
    assert float(aurc) == 13 / 48  # risks 0, 1/2, 1/3, 1/2 at coverages 1/4, 1/2, 3/4, 1
    low, high = json.loads(ci)
    assert low <= float(aurc) <= high


# pages whose commands run on the shipped examples, in this order in one folder (reports.md
# draws the evaluation calibration.md's commands stored first)
EXAMPLE_PAGES = ("docs/calibration.md", "docs/reports.md", "docs/risk-control.md")


@pytest.mark.slow
def test_the_docs_commands_run_as_written_on_the_examples(tmp_path, run_cli, monkeypatch):
    commands = [
        shlex.split(line, comments=True)
        for page in EXAMPLE_PAGES
        for block in blocks(page, "bash")
        for line in block.splitlines()
        if line.startswith("riskcov ")
    ]
    assert len(commands) == 15
    monkeypatch.chdir(tmp_path)
    os.symlink(REPO_ROOT / "examples", tmp_path / "examples")
    for args in commands:
        result = run_cli(args[1:], env={"RISKCOV_WAREHOUSE": None})
        assert result.exit_code == 0, (args, result.stderr)
    for written in ("cal.json", "rc.png", "rc.svg", "report.html"):
        assert (tmp_path / written).stat().st_size > 0, written
