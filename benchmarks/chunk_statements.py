"""Where a replicate chunk's CPU goes, per SQL statement (issue 23: profile before building).

    python benchmarks/chunk_statements.py [--participants 41] [--modes few_shot] [--confidence all]
        [--resamples 1999] [--chunk 1000] [--workdir DIR]
    python benchmarks/chunk_statements.py --warehouse WH [--chunk C] -- evaluate ARGS...

One in-process `riskcov evaluate` (RISKCOV_PUBLISH=0) on one connection (no worker
connections), its replicates in chunks of C. Every statement the chunk work runs
(metrics.engine.compute, balanced.compute, cost_curves.compute and what they call) is timed
with the process's CPU clock, its fetch included, and summed per statement text, with the
page faults its thread took (fresh memory from the kernel: docs/performance.md, the block
pool). The first
form evaluates the generated PHQ-8 run of benchmarks/evaluate_bootstrap.py (its --modes,
two for a paired run; ingested once into --workdir); the second any evaluate call on a
warehouse of yours (e.g. the per-sample file of per_sample_1m.py). The evaluation runs on a
copy of the warehouse, so the input warehouse stays as it was. Prints a table, statements by
CPU, and ends with one line.
Read on a loaded machine, the shares hold better than the milliseconds.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import itertools
import os
import re
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as `riskcov evaluate` sets it before numpy
os.environ["RISKCOV_PUBLISH"] = "0"

from evaluate_bootstrap import _prepare

import riskcov.cli
from riskcov.metrics import balanced, chunk_plan, cost_curves, engine

CPU: collections.defaultdict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0, 0])
CHUNK_WORK = "the chunk work (engine, balanced, cost_curves)"


def _label(query: str) -> str:
    """The calling module and function, and the statement's first words."""
    caller = sys._getframe(2).f_code  # not inspect.stack(): it reads source files, CPU counted here
    text = re.sub(r"\s+", " ", query).strip()
    return f"{Path(caller.co_filename).stem}.{caller.co_name}: {text[:60]}"


class _Result:
    """A query result whose fetches add to their statement's CPU."""

    def __init__(self, result: Any, key: str) -> None:
        self._result, self._key = result, key

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._result, name)
        if not callable(attr):
            return attr

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return attr(*args, **kwargs)
            finally:
                CPU[self._key][0] += time.process_time() - start

        return timed


class _Connection:
    """A DuckDB connection whose statements are timed (what a chunk's work calls on it)."""

    def __init__(self, con: Any) -> None:
        self._con = con

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)

    def execute(self, query: str, *args: Any, **kwargs: Any) -> _Result:
        key = _label(query)
        start, faults = time.process_time(), _faults()
        result = self._con.execute(query, *args, **kwargs)
        CPU[key][0] += time.process_time() - start
        CPU[key][1] += 1
        CPU[key][2] += _faults() - faults
        return _Result(result, key)


def _faults() -> int:
    """The page faults this thread has taken so far (memory the kernel handed in fresh)."""
    return resource.getrusage(resource.RUSAGE_THREAD).ru_minflt


def _instrument(chunk: int) -> None:
    chunk_plan.plan_chunks = lambda con, b, shape=None: (chunk, 1, 0)  # type: ignore[assignment]
    for module in (engine, balanced, cost_curves):
        work = module.compute

        def timed(con: Any, *args: Any, _work: Any = work, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return _work(con if isinstance(con, _Connection) else _Connection(con), *args, **kwargs)
            finally:
                CPU[CHUNK_WORK][0] += time.process_time() - start

        module.compute = timed  # type: ignore[assignment]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=41)
    parser.add_argument("--modes", default="few_shot", help="comma-separated; two for a paired run")
    parser.add_argument("--confidence", default="all")
    parser.add_argument("--resamples", type=int, default=1999)
    parser.add_argument("--chunk", type=int, default=1000, help="replicates per chunk")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--warehouse", type=Path, help="evaluate on a copy of this warehouse")
    parser.add_argument("evaluate", nargs="*", help="after --: evaluate and its arguments")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="riskcov-chunks-") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if args.warehouse:
            source, cli = args.warehouse, args.evaluate
        else:
            modes = tuple(args.modes.split(","))
            _, source, run_id = _prepare(args.participants, modes, work)
            cli = ["evaluate"]
            for mode in modes:
                cli += ["--input", run_id, "--mode", mode]
            cli += ["--confidence", args.confidence]
            cli += ["--bootstrap-resamples", str(args.resamples)]
        copy = Path(tmp) / "copy.duckdb"
        shutil.copyfile(source, copy)
        _instrument(args.chunk)
        sys.argv = ["riskcov", "--warehouse", str(copy), *cli, "--output", str(Path(tmp) / "a.json")]
        start = time.process_time()
        with contextlib.suppress(SystemExit), contextlib.redirect_stdout(open(os.devnull, "w")):
            riskcov.cli.main()
        whole = time.process_time() - start
    b = next((int(v) for k, v in itertools.pairwise(cli) if k == "--bootstrap-resamples"), 0)
    chunk_cpu = CPU[CHUNK_WORK][0]
    print(f"load average {os.getloadavg()[0]:.2f}; whole evaluate {whole:.2f} CPU-s in-process")
    print("\n| statement (caller: first words) | calls | CPU-s | share of the chunk work | page faults |")
    print("|---|---|---|---|---|")
    for key, (cpu, calls, faults) in sorted(CPU.items(), key=lambda kv: -kv[1][0]):
        if key != CHUNK_WORK and cpu >= 0.005:
            share = 100 * cpu / max(chunk_cpu, 1e-9)
            print(f"| {key.replace('|', '/')} | {calls} | {cpu:.3f} | {share:.0f} % | {faults} |")
    per = 1000 * chunk_cpu / max(b + 1, 1)
    print(
        f"chunk_statements: {b + 1} replicates in chunks of {args.chunk}: "
        f"{chunk_cpu:.2f} CPU-s in the chunk work, {per:.1f} ms per replicate"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
