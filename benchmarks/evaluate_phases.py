"""Where the fixed cost of `riskcov evaluate` goes (issue 12: 41 participants x `default`).

    python benchmarks/evaluate_phases.py [--participants 41] [--resamples 10000] [--reps 5]
        [--confidence default|all] [--workdir DIR]

On the warehouse of benchmarks/evaluate_bootstrap.py (the same generated run, ingested once),
medians over R fresh interpreters (RISKCOV_PUBLISH=0, riskcov byte-compiled first):
`python -c pass`; `python -X importtime` of the CLI call, self time per top-level package; and
one CLI call (`riskcov.cli.main` with `evaluate --input RUN --mode few_shot --confidence C`,
summary to a file) with timers (wall, and the process's CPU: every thread) around its phases:
importing riskcov.cli and the evaluation, opening the warehouse (connect, migrations check, SQL
objects), resolving the input, the scored relation, the per-evaluation tables, the stream's and
the cells' plans, the replicates 0..B (`chunks.run`), the artifact dict, storing the rows,
staging the artifact, closing the warehouse (DuckDB checkpoints the stored rows), the console
summary, and what each enclosing step does besides (e.g. typer parsing, COMMIT). Prints a
markdown table.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import compile_package
from evaluate_bootstrap import _prepare

ENV = {**os.environ, "RISKCOV_PUBLISH": "0"}
DRIVER = r"""
import contextlib, json, sys, time
def now():
    return time.perf_counter(), time.process_time()  # CPU: the whole process, every thread
out = {}
def add(name, start):
    wall, cpu = now()
    was = out.get(name, (0.0, 0.0))
    out[name] = (was[0] + wall - start[0], was[1] + cpu - start[1])
import os
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as `riskcov evaluate` sets it before numpy
t = now(); import riskcov.cli; add("import riskcov.cli (typer, duckdb)", t)
t = now(); import riskcov.evaluation.run; add("import the evaluation (numpy)", t)
from riskcov.cli import evaluate as cli_evaluate
from riskcov.evaluation import assembly, run
from riskcov.metrics import cells, chunks, engine, stream_plan
from riskcov.report import artifact, store, summary

def timed(module, attr, label):
    fn = getattr(module, attr)
    def wrapper(*a, **k):
        t = now()
        try:
            return fn(*a, **k)
        finally:
            add(label, t)
    setattr(module, attr, wrapper)

timed(run, "resolve", "resolve the input")
timed(run, "build_scored", "scored relation (build_scored)")
timed(engine, "drop_series", "per-evaluation tables (drop_series)")
timed(stream_plan, "plan", "the stream's plan")
timed(cells, "plan", "the cells' plan")
timed(chunks, "run", "replicates 0..B (chunks.run)")
timed(run, "_compute_all", "_compute_all")
timed(assembly, "artifact_of", "artifact dict (assembly)")
timed(run, "run", "run")
timed(run, "evaluate_and_store", "evaluate_and_store")
timed(store, "save", "store the rows")
timed(artifact, "write_on_commit", "stage the artifact")
timed(summary, "show", "console summary")
opener = cli_evaluate.open_warehouse
@contextlib.contextmanager
def open_warehouse(*a, **k):
    cm = opener(*a, **k)
    t = now(); con = cm.__enter__(); add("open the warehouse", t)
    try:
        yield con
    finally:
        t = now(); cm.__exit__(None, None, None); add("close (checkpoint)", t)
cli_evaluate.open_warehouse = open_warehouse
sys.argv = ["riskcov", *json.loads(sys.argv[1])]
t = now()
with contextlib.redirect_stdout(open(sys.argv[-1] + ".txt", "w")), contextlib.suppress(SystemExit):
    riskcov.cli.main()
add("main", t)
print(json.dumps(out))
"""
# the phases inside others, whose remainder is reported as "rest of ..."
IN_COMPUTE = ("the stream's plan", "the cells' plan", "replicates 0..B (chunks.run)")
IN_RUN = ("scored relation (build_scored)", "per-evaluation tables (drop_series)", "_compute_all")
IN_RUN += ("artifact dict (assembly)",)
IN_STORE = ("resolve the input", "run", "store the rows", "stage the artifact")
IN_MAIN = ("open the warehouse", "evaluate_and_store", "close (checkpoint)", "console summary")
ORDER = (
    "import riskcov.cli (typer, duckdb)",
    "import the evaluation (numpy)",
    "open the warehouse",
    "resolve the input",
    "scored relation (build_scored)",
    "per-evaluation tables (drop_series)",
    *IN_COMPUTE,
    "rest of _compute_all (chunk plan)",
    "artifact dict (assembly)",
    "rest of run (loss, CSF choice, totals)",
    "store the rows",
    "stage the artifact",
    "rest of evaluate_and_store (transaction, COMMIT, rename)",
    "close (checkpoint)",
    "console summary",
    "rest of the CLI (typer parsing, checks)",
)


def _rest(got: dict[str, list[float]], whole: str, parts: tuple[str, ...]) -> list[float]:
    """(wall, CPU) of `whole` less its timed `parts`."""
    return [got[whole][i] - sum(got[k][i] for k in parts) for i in (0, 1)]


def _wall_cpu(cmd: list[str]) -> tuple[float, float]:
    r0 = os.times()
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=ENV)
    wall = time.perf_counter() - t
    r1 = os.times()
    return wall, r1.children_user - r0.children_user + r1.children_system - r0.children_system


def _importtime(cmd: list[str]) -> dict[str, float]:
    """Self import time per top-level package (seconds) of one run of `cmd` (a python call)."""
    p = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], capture_output=True, text=True, env=ENV)
    per: collections.Counter[str] = collections.Counter()
    for line in p.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[0].strip().isdigit():
            per[parts[2].strip().split(".")[0].lstrip("_")] += int(parts[0]) / 1e6
    return dict(per)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=41)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--confidence", default="default", help="evaluate's --confidence (default, all, ...)")
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    compile_package()
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="riskcov-phases-", dir=args.workdir) as tmp:
        work = args.workdir or Path(tmp)
        _, wh, run_id = _prepare(args.participants, ("few_shot",), work)
        cli = ["--warehouse", str(wh), "evaluate", "--input", run_id, "--mode", "few_shot"]
        cli += ["--confidence", args.confidence]
        cli += ["--bootstrap-resamples", str(args.resamples), "--output", str(work / "phases.json")]
        py = sys.executable
        runner = [py, "-c", "import sys; from riskcov.cli import main; sys.argv[0] = 'riskcov'; main()"]
        phases, imports, whole, start = [], [], [], []
        for _ in range(args.reps):
            start.append(_wall_cpu([py, "-c", "pass"]))
            whole.append(_wall_cpu([*runner, *cli]))
            imports.append(_importtime([*runner, *cli]))
            p = subprocess.run([py, "-c", DRIVER, json.dumps(cli)], capture_output=True, text=True, env=ENV)
            if p.returncode:
                sys.exit(p.stderr[-2000:])
            got = json.loads(p.stdout.splitlines()[-1])
            got["rest of _compute_all (chunk plan)"] = _rest(got, "_compute_all", IN_COMPUTE)
            got["rest of run (loss, CSF choice, totals)"] = _rest(got, "run", IN_RUN)
            got["rest of evaluate_and_store (transaction, COMMIT, rename)"] = _rest(
                got, "evaluate_and_store", IN_STORE
            )
            got["rest of the CLI (typer parsing, checks)"] = _rest(got, "main", IN_MAIN)
            phases.append(got)
    med = {k: [statistics.median(p[k][i] for p in phases) for i in (0, 1)] for k in ORDER}
    print(f"load average {os.getloadavg()[0]:.2f}; medians of {args.reps}")
    print(f"whole CLI: {statistics.median(w for w, _ in whole):.3f} s wall, ", end="")
    print(f"{statistics.median(c for _, c in whole):.3f} CPU-s; python -c pass: ", end="")
    print(f"{statistics.median(w for w, _ in start):.3f} s")
    print("\n| phase (one CLI call, in-process) | wall ms | CPU ms |\n|---|---|---|")
    for k in ORDER:
        print(f"| {k} | {1000 * med[k][0]:.0f} | {1000 * med[k][1]:.0f} |")
    packages = {k for d in imports for k in d}
    rows = sorted(((statistics.median(d.get(k, 0.0) for d in imports), k) for k in packages), reverse=True)
    print("\n| package (python -X importtime, self) | ms |\n|---|---|")
    for seconds, name in rows[:8]:
        print(f"| {name} | {1000 * seconds:.0f} |")
    print(f"| all others | {1000 * sum(s for s, _ in rows[8:]):.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
