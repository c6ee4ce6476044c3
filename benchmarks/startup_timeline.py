"""Where one `riskcov` command's process spends its time: imports, opening the warehouse, the
library call, closing, printing, and the process around it.

    python benchmarks/startup_timeline.py [--reps R] [--fresh] -- <riskcov arguments>
    e.g. python benchmarks/startup_timeline.py --reps 5 --fresh -- --warehouse W evaluate --input RUN \
        --mode few_shot --confidence default --bootstrap-resamples 10000 --output /tmp/a.json

Runs the command R times, each in a fresh interpreter through the console entry point
(riskcov.cli.console), with RISKCOV_PUBLISH=0 (no BI snapshot), and marks CPU (process_time:
every thread) and wall time at: the CLI imported, `open_warehouse` entered (typer's parsing and
the options' checks done, the pipeline's import started on its thread) and left, the pipeline's
import joined, the command's library call (`evaluate_and_store` for evaluate), the warehouse
closed, the summary printed, the command returned; the whole process's wall time and CPU (user
+ system) come from outside. The pipeline and the summary are wrapped when the command imports
them (an import hook), so the imports overlap as in the CLI. Each phase is the time since the
previous mark. Prints each phase's median over the runs, and the whole process's median wall
time as a status line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# runs inside the timed interpreter: marks as (name, CPU s, wall s since its start), as JSON
# into the file named by RISKCOV_TIMELINE
PROBE = r"""
import os, sys, time, json
W0, C0 = time.perf_counter(), time.process_time()
marks = []
def mark(name):
    marks.append((name, time.process_time() - C0, time.perf_counter() - W0))
import riskcov.cli as cli
mark("import riskcov.cli")
import importlib.util
from contextlib import contextmanager
from riskcov.cli import evaluate as ev
opened = ev.open_warehouse
@contextmanager
def open_warehouse(*a, **k):
    mark("typer, options (pipeline import started)")
    with opened(*a, **k) as con:
        mark("warehouse open")
        yield con
        mark("command done, closing")
    mark("warehouse closed")
ev.open_warehouse = open_warehouse
start_import = ev._import_beside
def beside(*modules):
    thread = start_import(*modules)
    class Joined:
        def join(self):
            thread.join()
            mark("pipeline imported (joined)")
    return Joined()
ev._import_beside = beside
def patched(name, patch):  # wrap a function of a module when it is first imported, as the CLI does
    class Finder:
        def find_spec(self, fullname, path, target=None):
            if fullname != name:
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(fullname)
            load = spec.loader.exec_module
            def exec_module(module):
                load(module)
                patch(module)
            spec.loader.exec_module = exec_module
            return spec
    sys.meta_path.insert(0, Finder())
def run_patch(run_mod):
    call = run_mod.evaluate_and_store
    def evaluate_and_store(*a, **k):
        out = call(*a, **k)
        mark("evaluate_and_store")
        return out
    run_mod.evaluate_and_store = evaluate_and_store
def summary_patch(summary):
    show = summary.show
    def shown(*a, **k):
        show(*a, **k)
        mark("summary printed")
    summary.show = shown
patched("riskcov.evaluation.run", run_patch)
patched("riskcov.report.summary", summary_patch)
import atexit
def report():
    mark("command returned")
    with open(os.environ["RISKCOV_TIMELINE"], "w") as out:
        json.dump(marks, out)
atexit.register(report)
sys.argv = ["riskcov", *sys.argv[1:]]
cli.console()
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="each run on the warehouse (--warehouse W of the command) as it was before the first: "
        "DuckDB's checkpoint at close rewrites the stored evaluations' row group, so a warehouse "
        "that gains an evaluation per run closes slower run by run",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the riskcov arguments")
    args = parser.parse_args(argv)
    command = [a for a in args.command if a != "--"] if args.command[:1] == ["--"] else args.command
    pristine = None
    if args.fresh:
        warehouse = command[command.index("--warehouse") + 1]
        pristine = tempfile.mkdtemp(prefix="riskcov-timeline-") + "/warehouse.duckdb"
        shutil.copyfile(warehouse, pristine)
    handle, marks_file = tempfile.mkstemp(suffix=".json")
    os.close(handle)
    env = {**os.environ, "RISKCOV_PUBLISH": "0", "RISKCOV_TIMELINE": marks_file}
    phases: dict[str, list[tuple[float, float]]] = {}
    walls, cpus = [], []
    for rep in range(args.reps):
        if pristine:
            shutil.copyfile(pristine, warehouse)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", PROBE, *command], capture_output=True, env=env, check=False
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(marks_file) as fh:
            marks = json.loads(fh.read() or "[]")
        if proc.returncode != 0:
            sys.exit(f"exit {proc.returncode}: {proc.stderr.decode()[-500:]}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        walls.append(wall)
        cpus.append(cpu)
        prev = (0.0, 0.0)
        for name, c, w in marks:
            phases.setdefault(name, []).append((c - prev[0], w - prev[1]))
            prev = (c, w)
        phases.setdefault("interpreter start + exit (outside)", []).append((cpu - prev[0], wall - prev[1]))
        print(f"rep {rep + 1}: {wall:.3f} s wall, {cpu:.3f} CPU-s", flush=True)
    print(f"{'phase (median over runs)':<38} {'CPU s':>7} {'wall s':>7}")
    for name, values in phases.items():
        c = statistics.median(v[0] for v in values)
        w = statistics.median(v[1] for v in values)
        print(f"{name:<38} {c:7.3f} {w:7.3f}")
    os.unlink(marks_file)
    if pristine:
        shutil.rmtree(os.path.dirname(pristine))
    load = os.getloadavg()[0]
    print(
        f"status: {args.reps} runs, median {statistics.median(walls):.2f} s wall, "
        f"{statistics.median(cpus):.2f} CPU-s (load average {load:.1f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
