"""`riskcov --version` and `riskcov runs` start without numpy and rich (issue 12, item 4), and
without pydantic: plain option values skip typer's pydantic coercion (riskcov.cli.coercion);
`riskcov evaluate` imports only what a DuckDB evaluation needs (docs/performance.md, start-up)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[2] / "src"


def _probe(code: str, *args: str, cwd: Path, **env: str | None) -> subprocess.CompletedProcess[str]:
    """`code` in a fresh interpreter on this tree's riskcov, with `env` changed (None: unset)."""
    full = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    for key, value in env.items():
        full.pop(key, None)
        if value is not None:
            full[key] = value
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd, env=full, check=False
    )


# one fresh interpreter runs the quick commands in turn and reports, after each, whether
# numpy, rich or pydantic has been imported by then (duckdb: --version prints its version)
PROBE = """
import contextlib, io, json, sys
from riskcov.cli import main
seen = {}
for args in json.loads(sys.argv[1]):
    sys.argv = ["riskcov", *args]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        main()
    seen[" ".join(args[:2])] = sorted(m for m in ("duckdb", "numpy", "rich", "pydantic") if m in sys.modules)
print(json.dumps(seen))
"""


def test_quick_commands_import_neither_numpy_nor_rich(shared_dir, warehouse_path, run_cli, tmp_path):
    worked = shared_dir / "fixtures" / "runs" / "worked_example.json"
    assert run_cli(["ingest", worked, "--warehouse", warehouse_path]).exit_code == 0
    wh = ["--warehouse", str(warehouse_path)]
    commands = [["--version"], ["runs", *wh], ["runs", "--json", *wh]]
    proc = _probe(PROBE, json.dumps(commands), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert json.loads(proc.stdout) == {
        "--version": ["duckdb"],
        "runs --warehouse": ["duckdb"],
        "runs --json": ["duckdb"],
    }

    lines = run_cli(["runs", *wh]).stdout.splitlines()
    header = " run_id    mode      participants  failed  items  predicted  abstained  abstention  "
    row = " worked01  few_shot  2             1       8      3          5          62.5%       "
    assert lines == [header + "ingested_at         ", row + lines[1][-20:]]
    assert len(lines[1][-20:].strip()) == 19  # the ingest time, to the second


# imported only by the commands or options that need them: sqlglot (user CSFs, `riskcov sql`,
# --engine spark), msgspec (ingest), rich (a progress bar on a terminal), pyspark, and the
# dataframe libraries of the Python API
# (and concurrent.futures: hashing a file input while it is read)
NOT_FOR_EVALUATE = ("sqlglot", "msgspec", "rich", "pyspark", "pyarrow", "pandas", "polars", "pydantic")
NOT_FOR_EVALUATE += ("concurrent.futures",)
EVALUATE_PROBE = """
import json, os, sys
from riskcov.cli import console
watched, report = json.loads(sys.argv[1]), sys.argv[2]
def watch():
    with open(report, "w") as out:
        modules = sorted(m for m in watched if m in sys.modules)
        json.dump({"modules": modules, "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS")}, out)
__import__("atexit").register(watch)
sys.argv = ["riskcov", *sys.argv[3:]]
console()
"""


def test_evaluate_imports_only_what_a_duckdb_evaluation_needs(shared_dir, warehouse_path, run_cli, tmp_path):
    """As the benchmarks run it: output to a pipe, which the summary draws without rich; and
    numpy imported without OpenBLAS's thread pool, which an evaluation has no use for."""
    worked = shared_dir / "fixtures" / "runs" / "worked_example.json"
    assert run_cli(["ingest", worked, "--warehouse", warehouse_path]).exit_code == 0
    artifact, seen = tmp_path / "a.json", tmp_path / "modules.json"
    args = ["--warehouse", str(warehouse_path), "evaluate", "--input", "worked01", "--no-publish"]
    args += ["--bootstrap-resamples", "20", "--output", str(artifact)]
    watched = json.dumps(["duckdb", "numpy", *NOT_FOR_EVALUATE])
    proc = _probe(
        EVALUATE_PROBE,
        watched,
        str(seen),
        *args,
        cwd=tmp_path,
        PYTHONIOENCODING="utf-8",
        OPENBLAS_NUM_THREADS=None,
    )
    assert proc.returncode == 0, proc.stderr[-500:]
    assert json.loads(artifact.read_text())["options"]["bootstrap_resamples"] == 20  # it evaluated
    assert json.loads(seen.read_text()) == {"modules": ["duckdb", "numpy"], "blas_threads": "1"}


def test_command_modules_have_evaluated_annotations():
    """typer reads every command's signature on each call: string annotations (PEP 563) would
    be compiled and evaluated again every time (~20 ms of each CLI call)."""
    import importlib
    import pkgutil

    import riskcov.cli

    names = [m.name for m in pkgutil.iter_modules(riskcov.cli.__path__, "riskcov.cli.")]
    lazy = [n for n in names if "annotations" in vars(importlib.import_module(n))]
    assert (len(names), lazy) == (19, [])


# which command modules one CLI call imported, in a fresh interpreter
COMMANDS_PROBE = """
import contextlib, io, json, sys
from riskcov.cli import main
modules = json.loads(sys.argv[1])
sys.argv = ["riskcov", *sys.argv[2:]]
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main()
print(json.dumps([m for m in modules if f"riskcov.cli.{m}" in sys.modules]))
"""


def test_a_command_imports_only_its_own_command_module(tmp_path):
    """Every command module was imported to run one command: the others' imports were a
    tenth of `riskcov evaluate`'s import of the CLI."""

    from riskcov.cli.lazy import COMMAND_MODULES

    def imported(*args: str) -> list[str]:
        proc = _probe(COMMANDS_PROBE, json.dumps(list(COMMAND_MODULES)), *args, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr[-500:]
        return list(json.loads(proc.stdout))

    assert imported("evaluate", "--help") == ["evaluate"]
    assert imported("--warehouse", "w.duckdb", "ood", "--help") == ["riskcontrol"]
    assert imported("csf", "list", "--help") == ["csf"]
    assert len(imported("--help")) == len(imported("evalute")) == 13  # the help lists them all


def test_the_commands_are_listed_in_one_order_whichever_module_came_first():
    """COMMAND_MODULES names every command its module registers, in the help's order, also when
    a command module was imported before the others (a narrowed call, a test's import)."""
    code = """
import json, sys
import riskcov.cli.warehouse, riskcov.cli.evaluate
from riskcov.cli import app
from riskcov.cli.lazy import COMMAND_MODULES, command_name
listed = [(c.callback.__module__, command_name(c)) for c in app.registered_commands]
listed += [("riskcov.cli." + g.name, g.name) for g in app.registered_groups]
print(json.dumps(listed))
"""
    from riskcov.cli.lazy import COMMAND_MODULES

    proc = _probe(code, cwd=Path.cwd())
    assert proc.returncode == 0, proc.stderr[-500:]
    expected = [(f"riskcov.cli.{m}", n) for m, names in COMMAND_MODULES.items() for n in names if n != "csf"]
    assert [tuple(pair) for pair in json.loads(proc.stdout)] == [*expected, ("riskcov.cli.csf", "csf")]


# the console script's ending: an atexit handler registered during the command still runs,
# output is flushed, the exit status is the command's; no interpreter teardown (os._exit)
CONSOLE = """
import atexit, sys
import riskcov.cli
atexit.register(lambda: sys.stdout.write("atexit ran\\n"))
class Module:  # freed when the interpreter tears the modules down, which the console skips
    def __del__(self):
        sys.stdout.write("torn down\\n")
kept = Module()
sys.argv = ["riskcov", *sys.argv[1:]]
riskcov.cli.console()
"""


def test_the_console_script_exits_with_the_commands_status_and_output(tmp_path):
    def console(*args: str) -> tuple[int, str, str]:
        proc = _probe(CONSOLE, *args, cwd=tmp_path)
        return proc.returncode, proc.stdout, proc.stderr

    code, out, err = console("--version")
    assert (code, out.splitlines()[1:], err) == (0, ["atexit ran"], "")
    assert out.startswith("riskcov ")
    code, out, err = console("no-such-command")
    assert (code, out) == (2, "atexit ran\n")
    assert "No such command 'no-such-command'" in err


def _cli(args: list[str], capsys: Any) -> tuple[object, str, str]:
    """riskcov.cli.main on `args`, in this process: (exit code, stdout, stderr)."""
    import riskcov.cli

    code: object = None
    old = sys.argv
    sys.argv = ["riskcov", *args]
    try:
        riskcov.cli.main()
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.argv = old
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_cli_builds_only_the_invoked_command():
    """typer builds every registered command on each call; main() registers only the one
    named (docs/performance.md, start-up), and every command when none is named."""
    from typer.main import get_command

    import riskcov.cli
    from riskcov.cli import only_invoked

    everything = list(get_command(riskcov.cli.app).commands)
    assert len(everything) == 18 and "evaluate" in everything and "csf" in everything
    for args, built in (
        (["--warehouse", "w.duckdb", "evaluate", "--input", "x"], ["evaluate"]),
        (["--warehouse=w.duckdb", "risk-control", "--help"], ["risk-control"]),
        (["csf", "list"], ["csf"]),
        (["sql"], ["sql"]),
        (["evaluat"], everything),  # no such command: click suggests among them all
        (["--help"], everything),
        (["--version", "evaluate"], everything),
        (["--warehouse"], everything),
        ([], everything),
    ):
        with only_invoked(args):
            assert list(get_command(riskcov.cli.app).commands) == built, args
    assert list(get_command(riskcov.cli.app).commands) == everything  # put back


def test_a_command_built_alone_says_what_it_said_built_with_the_others(capsys, monkeypatch):
    """Help texts, usage errors and exit codes are the same with the other commands built."""
    from typer.main import get_command

    import riskcov.cli

    names = list(get_command(riskcov.cli.app).commands)
    cases = [[name, "--help"] for name in names] + [[name, "--no-such-option"] for name in names]
    cases += [["csf", "list", "--help"], ["--warehouse", "w.duckdb", "evaluate", "--confidence"]]
    cases += [["evaluate", "--confidence", "msp", "--confidence", "llm"], ["evaluat"], ["--help"]]
    alone = [_cli(args, capsys) for args in cases]
    monkeypatch.setattr(riskcov.cli, "_invoked", lambda args: None)  # every command built
    together = [_cli(args, capsys) for args in cases]
    assert alone == together
    assert all(code in (0, 2) for code, _, _ in alone)
    assert sum("Usage: riskcov" in out for _, out, _ in alone) == len(names) + 2


def test_a_file_already_ingested_imports_no_format_package(shared_dir, warehouse_path, run_cli, tmp_path):
    """A file input's format is known from its suffix (riskcov.formats.SUFFIXES_BY_FORMAT); its
    package (msgspec, the per-sample readers) is imported once the file is known to be new."""
    worked = shared_dir / "fixtures" / "runs" / "worked_example.json"
    assert run_cli(["ingest", worked, "--warehouse", warehouse_path]).exit_code == 0
    seen = tmp_path / "modules.json"
    args = ["--warehouse", str(warehouse_path), "evaluate", "--input", str(worked), "--no-publish"]
    args += ["--bootstrap-resamples", "0", "--output", str(tmp_path / "a.json")]
    packages = ["msgspec", "riskcov.formats.phq8_json", "riskcov.formats.per_sample", "riskcov.formats"]
    proc = _probe(EVALUATE_PROBE, json.dumps(packages), str(seen), *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert json.loads(seen.read_text())["modules"] == ["riskcov.formats"]
    new = tmp_path / "new.json"  # a new file of the same run: its format's package parses it
    new.write_text(worked.read_text().replace("worked01", "worked02"))
    args[args.index(str(worked))] = str(new)
    proc = _probe(EVALUATE_PROBE, json.dumps(packages), str(seen), *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert json.loads(seen.read_text())["modules"] == ["msgspec", *packages[3:], packages[1]]


def test_ingest_into_a_new_warehouse_imports_no_sqlglot(tmp_path):
    """Installing the SQL objects of a new warehouse checks the CSF registry with DuckDB's
    parser: sqlglot (slow to import) is for user CSFs, `riskcov sql` and --engine spark."""
    worked = SRC.parent / "examples" / "example_run.json"
    seen = tmp_path / "modules.json"
    args = ["--warehouse", str(tmp_path / "new.duckdb"), "ingest", str(worked), "--no-publish"]
    proc = _probe(EVALUATE_PROBE, json.dumps(["duckdb", "sqlglot"]), str(seen), *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert "ingested" in proc.stdout
    assert json.loads(seen.read_text())["modules"] == ["duckdb"]
