"""Ctrl-C is one line and exit 130, wherever it lands (issue 11, item 10): while the CLI is
still loading, while a command runs, and inside a DuckDB query (DuckDB takes the signal
itself and raises its own error)."""

from __future__ import annotations

import os
import signal
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


# interrupt the import of one CLI module, as a Ctrl-C during start-up does: one riskcov.cli
# imports, or the invoked command's, which main() imports (cli/lazy.py)
LOADING = """
import sys
MODULE = sys.argv[1]
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == MODULE:
            raise KeyboardInterrupt
sys.meta_path.insert(0, Interrupt())
from riskcov.cli import main
sys.argv = ["riskcov", "plot", "--help"]
main()
"""


@pytest.mark.parametrize("module", ["riskcov.cli.lazy", "riskcov.cli.plot"])
def test_interrupt_while_the_cli_loads_is_one_line(tmp_path, module):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-c", LOADING, module]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env, check=False)
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, "", ONE_LINE)


def test_interrupt_while_typer_builds_the_command_is_one_line(monkeypatch, capsys):
    # typer builds the click command before the group's main (which catches a Ctrl-C) runs
    from riskcov import cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("typer.main.get_command", interrupted)
    monkeypatch.setattr(sys, "argv", ["riskcov", "runs"])
    code: object = None
    try:
        cli.main()
    except KeyboardInterrupt:  # not re-raised: pytest would stop the whole run
        code = "KeyboardInterrupt escaped"
    except SystemExit as exc:
        code = exc.code
    assert (code, capsys.readouterr()) == (130, ("", ONE_LINE))


# a real Ctrl-C (SIGINT) while DuckDB's extension module loads: raised inside its C
# initialisation it was an ImportError with a traceback, or an abort; it is held until the
# CLI's imports are done, then raised as the usual one line
SIGNAL_WHILE_LOADING = """
import os, signal, sys
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "_duckdb":
            held = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
            print("held" if held else "not held", flush=True)
            os.kill(os.getpid(), signal.SIGINT)
        return None
sys.meta_path.insert(0, Interrupt())
from riskcov.cli import main
"""


@pytest.mark.skipif(not hasattr(__import__("signal"), "pthread_sigmask"), reason="POSIX signal masks")
def test_a_sigint_while_duckdb_loads_is_held_then_one_line(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-c", SIGNAL_WHILE_LOADING],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
        # a suite started in the background by a shell without job control ignores SIGINT, and
        # the child would inherit that (the signal dropped, exit 0): the default, as at a terminal
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, "held\n", ONE_LINE)
    # the mask is restored: a program importing riskcov.cli still gets its Ctrl-C at once
    code = "import signal, riskcov.cli; print(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []))"
    after = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert (after.returncode, after.stdout) == (0, "False\n")
