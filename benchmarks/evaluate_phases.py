"""Where the fixed cost of `riskcov evaluate` goes (issue 12: 41 participants x `default`).

    python benchmarks/evaluate_phases.py [--participants 41] [--resamples 10000] [--reps 5]
        [--confidence default|all] [--workdir DIR]

On the warehouse of benchmarks/evaluate_bootstrap.py (the same generated run, ingested once),
medians over R fresh interpreters (RISKCOV_PUBLISH=0, riskcov byte-compiled first):
`python -c pass`; `python -X importtime` of the CLI call, self time per top-level package; and
one CLI call (`riskcov.cli.main` with `evaluate --input RUN --mode few_shot --confidence C`,
summary to a file) with timers around its phases: importing riskcov.cli and riskcov.evaluate, opening the
warehouse (connect, migrations check, SQL objects), resolving the input, the scored relation,
the metrics of replicates 0..B (`_compute_all`), the rest of `run` (artifact dict), storing the
rows, writing the artifact, closing the warehouse (DuckDB checkpoints the stored rows), the
console summary, and the rest (typer parsing, option checks). Prints a markdown table.
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
now = time.perf_counter
out = {}
def add(name, seconds):
    out[name] = out.get(name, 0.0) + seconds
t = now(); import riskcov.cli; add("import riskcov.cli (typer, duckdb)", now() - t)
t = now(); import riskcov.evaluate; add("import riskcov.evaluate (numpy)", now() - t)
from riskcov import evaluate
from riskcov.cli import evaluate as cli_evaluate
from riskcov.report import artifact, store, summary

def timed(module, attr, label):
    fn = getattr(module, attr)
    def wrapper(*a, **k):
        t = now()
        try:
            return fn(*a, **k)
        finally:
            add(label, now() - t)
    setattr(module, attr, wrapper)

timed(evaluate, "resolve", "resolve the input")
timed(evaluate, "build_scored", "scored relation (build_scored)")
timed(evaluate, "_compute_all", "metrics of replicates 0..B (_compute_all)")
timed(evaluate, "run", "run")
timed(evaluate, "evaluate_and_store", "evaluate_and_store")
timed(store, "save", "store the rows")
timed(artifact, "write", "write the artifact")
timed(summary, "show", "console summary")
opener = cli_evaluate.open_warehouse
@contextlib.contextmanager
def open_warehouse(*a, **k):
    cm = opener(*a, **k)
    t = now(); con = cm.__enter__(); add("open the warehouse", now() - t)
    try:
        yield con
    finally:
        t = now(); cm.__exit__(None, None, None); add("close (checkpoint)", now() - t)
cli_evaluate.open_warehouse = open_warehouse
sys.argv = ["riskcov", *json.loads(sys.argv[1])]
t = now()
with contextlib.redirect_stdout(open(sys.argv[-1] + ".txt", "w")), contextlib.suppress(SystemExit):
    riskcov.cli.main()
add("main", now() - t)
print(json.dumps(out))
"""
INNER = ("scored relation (build_scored)", "metrics of replicates 0..B (_compute_all)")
ORDER = (
    "import riskcov.cli (typer, duckdb)",
    "import riskcov.evaluate (numpy)",
    "open the warehouse",
    "resolve the input",
    *INNER,
    "rest of run (artifact dict)",
    "store the rows",
    "write the artifact",
    "rest of evaluate_and_store (transaction, cursor)",
    "close (checkpoint)",
    "console summary",
    "rest of the CLI (typer parsing, checks)",
)


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
            got["rest of run (artifact dict)"] = got["run"] - sum(got[k] for k in INNER)
            store = ("resolve the input", "run", "store the rows", "write the artifact")
            rest = got["evaluate_and_store"] - sum(got[k] for k in store)
            got["rest of evaluate_and_store (transaction, cursor)"] = rest
            inside = ("open the warehouse", "evaluate_and_store", "close (checkpoint)", "console summary")
            got["rest of the CLI (typer parsing, checks)"] = got["main"] - sum(got[k] for k in inside)
            phases.append(got)
    med = {k: statistics.median(p[k] for p in phases) for k in ORDER}
    print(f"load average {os.getloadavg()[0]:.2f}; medians of {args.reps}")
    print(f"whole CLI: {statistics.median(w for w, _ in whole):.3f} s wall, ", end="")
    print(f"{statistics.median(c for _, c in whole):.3f} CPU-s; python -c pass: ", end="")
    print(f"{statistics.median(w for w, _ in start):.3f} s")
    print("\n| phase (one CLI call, in-process) | ms |\n|---|---|")
    for k in ORDER:
        print(f"| {k} | {1000 * med[k]:.0f} |")
    packages = {k for d in imports for k in d}
    rows = sorted(((statistics.median(d.get(k, 0.0) for d in imports), k) for k in packages), reverse=True)
    print("\n| package (python -X importtime, self) | ms |\n|---|---|")
    for seconds, name in rows[:8]:
        print(f"| {name} | {1000 * seconds:.0f} |")
    print(f"| all others | {1000 * sum(s for s, _ in rows[8:]):.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
