"""Benchmark: `riskcov evaluate` with the participant-cluster bootstrap (issue 12 targets).

    python benchmarks/evaluate_bootstrap.py [--cases p41-all,p41-default,...] [--reps R]
        [--numpy-floor ../shared/tools/numpy_floor.py] [--reference 'CMD {run} {mode} ...']
    python benchmarks/evaluate_bootstrap.py --scaling [--reps R]
    python benchmarks/evaluate_bootstrap.py --status [--reps R]

Each case generates a run with scripts/make_example.py (integer evidence counts, ~30 %
abstention), ingests it into a fresh warehouse once, then times `riskcov evaluate --input
<run_id> --mode M [--input <run_id> --mode M2] --confidence C --bootstrap-resamples B` as a
subprocess R times (wall time, CPU seconds = user + system, and peak RSS from /usr/bin/time -v),
and separately the in-process `riskcov.evaluation.run.run` call (no interpreter start, no warehouse
open, no artifact written); RISKCOV_PUBLISH=0, so no BI snapshot is written after ingest or
evaluate; the riskcov package is byte-compiled first (as a wheel install does; with
PYTHONDONTWRITEBYTECODE=1 an editable install compiles every module in each run).
`--workdir` keeps the run files and warehouses for later runs. In the same run, for the
`all` cases, `--numpy-floor` times the comparator (a plain numpy implementation of the same
metrics, compute only, its own figure; it reads the warehouse before its clock starts) on
the case's warehouse right after each CLI run, and the ratio held against 1.2 is the median
of the runs' ratios; `--reference` times a reference evaluator: a command template with
the placeholders {run} (the run file), {mode}, {confidence} and {resamples}; skipped when not
given. `--scaling` times `default` over
participants 41 ... 100,000 and 1,000 / 10,000 resamples (P * B up to --scaling-max) and
fits CPU seconds = a * (P * B)^e by least squares on the logarithms. Prints each repetition, the medians and
markdown rows for the README. Each row names the replicate path the evaluation chose (docs/performance.md,
the shape rule: `cells`, `stream` or `chunked`), read off the in-process run. `--status` runs the
sort-once cases (STATUS) and prints only their rows.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import compile_package, make_example, riskcov_exe, time_v

ROOT = Path(__file__).resolve().parents[1]
FLOOR = ROOT.parent / "shared" / "tools" / "numpy_floor.py"
# name: (participants, modes, confidence, resamples, target seconds, target GB, reference then);
# target seconds None: reported, no target
CASES: dict[str, tuple[int, tuple[str, ...], str, int, float | None, float | None, str]] = {
    "p41-default": (41, ("few_shot",), "default", 10_000, 0.5, None, "~24 s"),
    "p41-all": (41, ("few_shot",), "all", 10_000, 2.0, 1.0, "~190 s"),
    "p2000-default": (2_000, ("few_shot",), "default", 10_000, 5.0, None, "~20 min"),
    "p189-paired-all": (189, ("zero_shot", "few_shot"), "all", 10_000, 10.0, 1.0, "-"),
    "p2000-all": (2_000, ("few_shot",), "all", 10_000, None, None, "-"),
    "p100k-default": (100_000, ("few_shot",), "default", 1_000, 30.0, 4.0, "-"),
}
# the sort-once cases (--status)
STATUS = ("p41-all", "p189-paired-all", "p2000-all", "p100k-default")
# riskcov / the numpy comparator, median of the runs' ratios; the comparator runs for the
# `all` cases it can hold in memory (at 2,000 participants its item matrices need ~10 GB)
RATIO_TARGET = {"p41-all": 1.0}
FLOOR_MAX_PARTICIPANTS = 500
# the BI snapshot is not part of evaluating (RISKCOV_PUBLISH=0: writing commands skip it)
ENV = {**os.environ, "RISKCOV_PUBLISH": "0"}
SCALING_P = (41, 500, 2_000, 10_000, 100_000)
SCALING_B = (1_000, 10_000)


def _timed(cmd: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (GB) of one subprocess."""
    p = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, env=ENV)
    if p.returncode:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr[-2000:]}")
    wall, rss = time_v(p.stderr)
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): (\S+)", p.stderr))
    return wall, cpu, rss / 2**30


def _prepare(participants: int, modes: tuple[str, ...], workdir: Path) -> tuple[Path, Path, str]:
    """The run file, its warehouse (ingested once, kept in --workdir) and the run id."""
    mk = make_example()
    run = mk.make_run(participants, seed=7, modes=modes, failure_rate=0.0)
    path = workdir / f"p{participants}-{len(modes)}.json"
    wh = workdir / f"p{participants}-{len(modes)}.duckdb"
    if not wh.exists():
        mk.write_run(run, path)
        subprocess.run(
            [riskcov_exe(), "ingest", str(path), "--warehouse", str(wh)], check=True, capture_output=True
        )
    return path, wh, run["run_metadata"]["run_id"]


def _measure(
    participants: int,
    modes: tuple[str, ...],
    confidence: str,
    resamples: int,
    reps: int,
    workdir: Path,
    floor: Path | None = None,
) -> tuple[float, float, float, float, Path, list[tuple[float, float]], str]:
    """Median wall and CPU seconds, max peak RSS (GB), median in-process seconds, the run file;
    with `floor`, (CLI wall, the comparator's seconds summed over the modes) of each repetition,
    the comparator run right after the CLI so that each ratio compares two runs of the same
    minute (this machine's speed drifts by ~30 %)."""
    path, wh, run_id = _prepare(participants, modes, workdir)
    cmd = [riskcov_exe(), "--warehouse", str(wh), "evaluate"]
    for mode in modes:
        cmd += ["--input", run_id, "--mode", mode]
    cmd += ["--confidence", confidence, "--bootstrap-resamples", str(resamples)]
    cmd += ["--output", str(workdir / "artifact.json")]
    walls, cpus, rsss = [], [], []
    floors: list[tuple[float, float]] = []  # (riskcov wall, floor seconds) of each repetition
    for i in range(reps):
        wall, cpu, rss = _timed(cmd)
        walls.append(wall)
        cpus.append(cpu)
        rsss.append(rss)
        then = ""
        if floor:
            floors.append((wall, float(_floor(floor, wh, modes[-1], resamples)) * len(modes)))
            then = f"; numpy floor {floors[-1][1]:.2f} s ({wall / floors[-1][1]:.2f} x)"
        print(
            f"  P={participants} {confidence} B={resamples} rep {i + 1}: "
            f"{wall:.2f} s wall, {cpu:.2f} CPU-s, {rss:.2f} GB{then}",
            flush=True,
        )
    from riskcov.evaluation import run as evaluate
    from riskcov.evaluation.prepared_warehouse import open_warehouse

    inproc = []
    paths = _spy_paths()
    for _ in range(reps):
        with open_warehouse(wh) as con:
            start = time.perf_counter()
            opts = evaluate.Options(
                inputs=[run_id] * len(modes),
                modes=list(modes),
                confidence=confidence,
                bootstrap_resamples=resamples,
            )
            evaluate.run(con, opts)
            inproc.append(time.perf_counter() - start)
    return (
        statistics.median(walls),
        statistics.median(cpus),
        max(rsss),
        statistics.median(inproc),
        path,
        floors,
        "/".join(sorted(set(paths))),
    )


def _spy_paths() -> list[str]:
    """The replicate path each in-process evaluation chooses (cells, stream or chunked), noted
    as the shape rule picks it (metrics/cells.py, metrics/stream_plan.py)."""
    from riskcov.metrics import cells, stream_plan

    paths: list[str] = []
    plan_stream, cells_plan = stream_plan.plan, cells.plan

    def stream_spy(*args: Any, **kwargs: Any) -> Any:
        out = plan_stream(*args, **kwargs)
        if out is not None:
            paths.append("stream")
        return out

    def cells_spy(*args: Any, **kwargs: Any) -> Any:
        out = cells_plan(*args, **kwargs)
        if out is not None:
            paths.append("cells")
        elif kwargs.get("allowed", True):
            paths.append("chunked")
        return out

    stream_plan.plan, cells.plan = stream_spy, cells_spy  # type: ignore[method-assign]
    return paths


def _floor(floor: Path, wh: Path, mode: str, resamples: int) -> str:
    """The numpy comparator's own compute time on one experiment of the warehouse."""
    import duckdb

    with duckdb.connect(str(wh), read_only=True) as con:
        eid = con.execute("SELECT min(experiment_id) FROM experiments WHERE mode = ?", [mode]).fetchall()[0][
            0
        ]
    p = subprocess.run(
        [sys.executable, str(floor), str(wh), str(eid), str(resamples)], capture_output=True, text=True
    )
    found = re.search(r": ([0-9.]+) s", p.stdout)
    if p.returncode or not found:
        sys.exit(f"numpy floor failed:\n{p.stdout}\n{p.stderr[-2000:]}")
    return found.group(1)


def _reference(template: str, path: Path, modes: tuple[str, ...], confidence: str, resamples: int) -> float:
    """Wall seconds of the reference evaluator's command (one run per mode, summed)."""
    total = 0.0
    for mode in modes:
        cmd = template.format(run=path, mode=mode, confidence=confidence, resamples=resamples)
        total += _timed(shlex.split(cmd))[0]
    return total


def run_case(name: str, reps: int, workdir: Path, floor: Path | None, reference: str | None) -> str:
    participants, modes, confidence, resamples, target, target_gb, then = CASES[name]
    compared = floor if confidence == "all" and participants <= FLOOR_MAX_PARTICIPANTS else None
    wall, cpu, rss, core, path, pairs, chosen = _measure(
        participants, modes, confidence, resamples, reps, workdir, compared
    )
    limit = "report" if target is None else f"≤ {target:g} s" + (f", ≤ {target_gb:g} GB" if target_gb else "")
    met = target is None or (wall <= target and (target_gb is None or rss <= target_gb))
    compare = ""
    if pairs:
        ratios = [w / f for w, f in pairs]
        ratio = statistics.median(ratios)
        compare = (
            f"; numpy floor {statistics.median(f for _, f in pairs):.2f} s; riskcov / floor, each CLI "
            f"run over the floor run right after it: median {ratio:.2f} ({min(ratios):.2f}-{max(ratios):.2f})"
        )
        target_ratio = RATIO_TARGET.get(name, 1.2)
        limit += f", ≤ {target_ratio:g}x numpy"
        met = met and ratio <= target_ratio  # the target: the median of the runs' ratios
    ref = (
        f"{_reference(reference, path, modes, confidence, resamples):.1f} s"
        if reference
        else f"not run (then {then})"
    )
    label = " vs ".join(modes) if len(modes) > 1 else modes[0]
    return (
        f"| evaluate {participants:,} participants ({label}), `{confidence}`, {resamples:,} resamples | "
        f"{limit} | "
        f"{wall:.2f} s wall, {cpu:.2f} CPU-s ({core:.2f} s in-process), {rss:.2f} GB{compare}; "
        f"path: {chosen} | {ref} | {('reported' if target is None else 'met') if met else 'missed'} |"
    )


def scaling(reps: int, workdir: Path, max_pb: float) -> None:
    """`default` over participants and resamples (P * B up to max_pb), and the fitted exponent
    of P * B in the CLI's CPU seconds (steadier than wall time on a shared machine)."""
    rows, points = [], []
    for b in SCALING_B:
        for p in SCALING_P:
            if p * b > max_pb:
                continue
            wall, cpu, rss, core, *_ = _measure(p, ("few_shot",), "default", b, reps, workdir)
            rows.append(f"| {p:,} | {b:,} | {wall:.2f} s | {cpu:.2f} | {core:.2f} s | {rss:.2f} GB |")
            points.append((math.log(p * b), math.log(cpu)))
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    e = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    print("\n| participants | resamples | wall | CPU-s | in-process | peak RSS |\n|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\nCPU seconds ~ (P*B)^{e:.2f} (least squares on logs, {len(points)} points)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--numpy-floor", type=Path, default=FLOOR if FLOOR.exists() else None)
    parser.add_argument("--reference", help="command template of a reference evaluator")
    parser.add_argument("--scaling", action="store_true")
    parser.add_argument("--status", action="store_true", help="the sort-once cases (STATUS), their rows only")
    parser.add_argument("--scaling-max", type=float, default=1e8, help="largest P * B of --scaling")
    parser.add_argument("--workdir", type=Path, help="keep run files and warehouses here (reused)")
    args = parser.parse_args()
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
    compile_package()  # timed runs read riskcov's bytecode, as after a wheel install
    with tempfile.TemporaryDirectory(prefix="riskcov-bench-", dir=args.workdir) as tmp:
        if args.scaling:
            scaling(args.reps, args.workdir or Path(tmp), args.scaling_max)
            return 0
        rows = []
        for name in STATUS if args.status else args.cases.split(","):
            reps = 1 if name in ("p100k-default", "p2000-all") else args.reps
            rows.append(run_case(name, reps, args.workdir or Path(tmp), args.numpy_floor, args.reference))
    print("\n| case | target | median wall, CPU, peak RSS | reference evaluator | |\n|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
