"""Ctrl-C is one line and exit 130, wherever it lands (issue 11, item 10): while the CLI is
still loading, while a command runs, and inside a DuckDB query (DuckDB takes the signal
itself and raises its own error)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
ONE_LINE = "error: interrupted; the work in progress was rolled back\n"


@pytest.mark.parametrize(
    "raised",
    [
        KeyboardInterrupt(),
        duckdb.InterruptException("INTERRUPT Error: Interrupted!"),
        RuntimeError("Query interrupted"),
    ],
    ids=["python", "duckdb", "duckdb-numpy"],
)
def test_interrupt_during_a_command_is_one_line(raised, run_cli, monkeypatch, tmp_path):
    def interrupted(*args, **kwargs):
        raise raised

    monkeypatch.setattr("riskcov.cli.ingest.expand_paths", interrupted)
    result = run_cli(["ingest", tmp_path / "run.json", "--warehouse", tmp_path / "w.duckdb"])
    assert (result.exit_code, result.stdout, result.stderr, result.crashed) == (130, "", ONE_LINE, False)


def test_interrupt_while_parsing_options_is_one_line(run_cli, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("typer.core.TyperGroup.parse_args", interrupted)
    result = run_cli(["runs"])
    assert (result.exit_code, result.stdout, result.stderr) == (130, "", ONE_LINE)


# interrupt the import of one CLI module, as a Ctrl-C during start-up does
LOADING = """
import sys
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "riskcov.cli.plot":
            raise KeyboardInterrupt
sys.meta_path.insert(0, Interrupt())
from riskcov.cli import main
"""


def test_interrupt_while_the_cli_loads_is_one_line(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-c", LOADING], capture_output=True, text=True, cwd=tmp_path, env=env, check=False
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, "", ONE_LINE)
