"""Benchmark: a per-sample run of 1,000,000 samples x 3 score columns x 5 seeds (issue 8).

    python benchmarks/per_sample_1m.py [--samples N] [--seeds S] [--clusters C] [--reps R]
                                       [--resamples B] [--cases ingest,evaluate,evaluate-b0]
                                       [--numpy]

Generates one Parquet file deterministically with numpy (columns sample_id, seed, method,
confidence_a/b/c, correct and, with --clusters C > 0, cluster = sample_id mod C): for each
seed, N samples whose correctness follows a latent difficulty; confidence_a is a continuous
score (no ties), confidence_b the same rounded to 3 decimals (plateaus of ~1,000 samples),
confidence_c a 0..10 rating (11 plateaus). Then times whole CLI processes (wall time and peak
RSS and CPU seconds from /usr/bin/time -v, medians of R):

- `ingest`: `riskcov ingest FILE --no-publish` into a fresh warehouse (target < 20 s);
- `evaluate`: `riskcov evaluate --input RUN --experiment-seed 0 --confidence all
  --bootstrap-resamples B` (B = 1,000: target < 60 s, < 4 GB peak RSS);
- `evaluate-b0`: the same with 0 resamples.

With `--numpy`, each `evaluate` repetition is followed by the numpy comparator on the same
data and the same B bootstrap draws (`per_sample_floor.py --data FILE --replicates B`: AURC and
AUGRC of the three scores in one process), timed the same way, so the two alternate; the ratio
riskcov / numpy of each pair is printed and its median reported.

Prints every repetition, the medians and markdown rows for the README's benchmark table.

    python benchmarks/per_sample_1m.py --target [--reps R]
    python benchmarks/per_sample_1m.py --per-replicate B [--reps R]

`--target` runs the issue's whole target and nothing else: one seed, `evaluate` of 1,000
resamples (wall and peak RSS) alternated with the numpy comparator on the same draws, R pairs,
and ends with one line: medians, peak RSS and whether <= 60 s, <= 4 GB and no slower than
numpy were met (run it on a quiet machine). `--per-replicate B` is the loaded-machine
measurement: per repetition `evaluate` with 0 and with B resamples and the comparator with B,
alternated; CPU-seconds per replicate = (CPU(B) - CPU(0)) / B against the comparator's CPU per
replicate of its loop (loading the data left out), medians of R.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
from common import riskcov_exe, time_v

TARGETS = {"ingest": (20.0, None), "evaluate": (60.0, 4.0), "evaluate-b0": (None, None)}


def generate(path: Path, samples: int, seeds: int, clusters: int) -> None:
    """The benchmark's Parquet file (deterministic: numpy's PCG64 seeded per seed)."""
    con = duckdb.connect()
    for seed in range(seeds):
        rng = np.random.default_rng(1_000 + seed)
        difficulty = rng.random(samples)
        correct = (rng.random(samples) > 0.6 * difficulty).astype(np.int8)
        score = np.clip(1.0 - difficulty + rng.normal(0.0, 0.25, samples), 0.0, 1.0)
        columns: dict[str, Any] = {
            "sample_id": np.arange(samples, dtype=np.int64),
            "seed": np.full(samples, seed, dtype=np.int64),
            "confidence_a": score,
            "confidence_b": np.round(score, 3),
            "confidence_c": np.round(score * 10.0),
            "correct": correct,
        }
        if clusters:
            columns["cluster"] = columns["sample_id"] % clusters
        con.register("_part", columns)
        cluster = ", cluster" if clusters else ""
        con.execute(
            f"{'CREATE TABLE bench AS' if seed == 0 else 'INSERT INTO bench'} "
            f"SELECT sample_id, seed, 'bench' AS method, confidence_a, confidence_b, confidence_c, "
            f"correct{cluster} FROM _part"
        )
        con.unregister("_part")
    con.execute(f"COPY (FROM bench ORDER BY seed, sample_id) TO '{path}' (FORMAT parquet)")
    con.close()


def timed(cmd: list[str]) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (GB) and CPU seconds (user + system) of one subprocess; on a
    shared machine the CPU seconds say more than the wall time."""
    if Path("/usr/bin/time").exists():
        p = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True)
        if p.returncode:
            sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr[-2000:]}")
        wall, rss = time_v(p.stderr)
        cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): (\S+)", p.stderr))
        return wall, rss / 2**30, cpu
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start, float("nan"), float("nan")


def row(label: str, case: str, walls: list[float], rsss: list[float], cpus: list[float]) -> str:
    wall, rss, cpu = statistics.median(walls), max(rsss), statistics.median(cpus)
    target_s, target_gb = TARGETS[case]
    target = ", ".join(
        t for t in (f"< {target_s:g} s" if target_s else "", f"< {target_gb:g} GB" if target_gb else "") if t
    )
    met = (target_s is None or wall < target_s) and (target_gb is None or rss < target_gb)
    verdict = "met" if target else "-"
    if target and not met:
        verdict = "missed"
    return f"| {label} | {target or '-'} | {wall:.1f} s ({cpu:.1f} CPU-s), {rss:.2f} GB | {verdict} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--clusters", type=int, default=0)
    parser.add_argument("--resamples", type=int, default=1_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--cases", default=",".join(TARGETS))
    parser.add_argument("--keep", type=Path, help="work in this folder and keep its files")
    parser.add_argument("--numpy", action="store_true", help="alternate evaluate with the numpy comparator")
    parser.add_argument("--target", action="store_true", help="only the 1 M x 3 x 1,000 target vs numpy")
    parser.add_argument(
        "--per-replicate", type=int, default=0, metavar="B", help="CPU-s per replicate vs numpy"
    )
    args = parser.parse_args()
    if args.target or args.per_replicate:
        return _against_numpy(args)
    exe = riskcov_exe()
    with tempfile.TemporaryDirectory(prefix="riskcov-bench-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        data = work / "bench1m.parquet"
        start = time.perf_counter()
        generate(data, args.samples, args.seeds, args.clusters)
        mib = data.stat().st_size / 2**20
        print(f"generated {data} ({mib:.0f} MiB) in {time.perf_counter() - start:.1f} s", flush=True)
        wh = work / "bench1m.duckdb"
        rows = []
        size = f"{args.samples:,} samples x 3 scores x {args.seeds} seeds"
        ratios: list[float] = []
        for case in args.cases.split(","):
            walls, rsss, cpus = [], [], []
            for i in range(args.reps):
                if case == "ingest" or not wh.exists():
                    for stale in (wh, wh.with_name(wh.name + ".wal")):
                        stale.unlink(missing_ok=True)
                    # the BI snapshot after an ingest is a step of its own (riskcov publish)
                    cmd = [exe, "ingest", str(data), "--warehouse", str(wh), "--no-publish"]
                    if case != "ingest":
                        subprocess.run(cmd, check=True, capture_output=True)
                if case != "ingest":
                    b = args.resamples if case == "evaluate" else 0
                    cmd = [exe, "evaluate", "--input", data.stem, "--experiment-seed", "0"]
                    cmd += ["--confidence", "all", "--bootstrap-resamples", str(b)]
                    cmd += ["--warehouse", str(wh), "--output", str(work / f"{case}.json")]
                wall, rss, cpu = timed(cmd)
                walls.append(wall)
                rsss.append(rss)
                cpus.append(cpu)
                print(
                    f"  {case} rep {i + 1}: {wall:.2f} s wall, {cpu:.1f} CPU-s, {rss:.2f} GB peak RSS",
                    flush=True,
                )
                if args.numpy and case == "evaluate":
                    floor = Path(__file__).with_name("per_sample_floor.py")
                    n_wall, _, n_cpu = timed(
                        [sys.executable, str(floor), "--data", str(data), "--replicates", str(args.resamples)]
                    )
                    ratios.append(wall / n_wall)
                    print(
                        f"  numpy rep {i + 1}: {n_wall:.2f} s wall, {n_cpu:.1f} CPU-s; "
                        f"riskcov / numpy {wall / n_wall:.2f} (wall)",
                        flush=True,
                    )
            if case == "ingest":
                label = f"ingest per-sample Parquet, {size} ({mib:.0f} MiB)"
            else:
                b = args.resamples if case == "evaluate" else 0
                label = (
                    f"evaluate one per-sample experiment ({args.samples:,} samples, `all` = 3 scores), "
                    f"{b:,} resamples"
                )
            rows.append(row(label, case, walls, rsss, cpus))
    if ratios:
        print(f"riskcov / numpy (wall, alternated pairs): median {statistics.median(ratios):.2f}")
    print("\n| benchmark | target | measured | |\n|---|---|---|---|")
    print("\n".join(rows))
    return 0


def _evaluate_cmd(exe: str, work: Path, data: Path, wh: Path, b: int) -> list[str]:
    cmd = [exe, "evaluate", "--input", data.stem, "--experiment-seed", "0", "--confidence", "all"]
    cmd += ["--bootstrap-resamples", str(b), "--warehouse", str(wh), "--output", str(work / f"b{b}.json")]
    return [*cmd, "--no-publish"]


def _against_numpy(args: argparse.Namespace) -> int:
    """--target and --per-replicate: riskcov and the numpy comparator alternated on one seed."""
    exe = riskcov_exe()
    floor = Path(__file__).with_name("per_sample_floor.py")
    b = args.per_replicate or args.resamples
    with tempfile.TemporaryDirectory(prefix="riskcov-bench-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        data, wh = work / "bench1m.parquet", work / "bench1m.duckdb"
        generate(data, args.samples, 1, args.clusters)
        for stale in (wh, wh.with_name(wh.name + ".wal")):
            stale.unlink(missing_ok=True)
        subprocess.run([exe, "ingest", str(data), "--warehouse", str(wh), "--no-publish"], check=True)
        numpy_cmd = [sys.executable, str(floor), "--data", str(data), "--replicates", str(b)]
        runs: dict[str, list[tuple[float, float, float]]] = {"riskcov": [], "riskcov0": [], "numpy": []}
        loop: list[float] = []
        for i in range(args.reps):
            if args.per_replicate:
                runs["riskcov0"].append(timed(_evaluate_cmd(exe, work, data, wh, 0)))
            runs["riskcov"].append(timed(_evaluate_cmd(exe, work, data, wh, b)))
            runs["numpy"].append(timed(numpy_cmd))
            if args.per_replicate:  # the comparator's own count: its replicate loop, without loading
                out = subprocess.run(numpy_cmd, check=True, capture_output=True, text=True).stdout
                loop.append(float(re.findall(r"(\S+) ms CPU", out)[-1]) / 1000)
            print(
                f"  pair {i + 1}: "
                + "; ".join(
                    f"{k} {v[-1][0]:.1f} s wall, {v[-1][2]:.1f} CPU-s, {v[-1][1]:.2f} GB"
                    for k, v in runs.items()
                    if v
                ),
                flush=True,
            )
    med = {k: [statistics.median(x[j] for x in v) for j in range(3)] for k, v in runs.items() if v}
    size = f"{args.samples:,} samples x 3 scores x {b:,} resamples, medians of {args.reps} alternated pairs"
    if args.per_replicate:
        ours = (med["riskcov"][2] - med["riskcov0"][2]) / b
        theirs = statistics.median(loop)
        print(
            f"per replicate ({size}): riskcov {ours:.3f} CPU-s (fixed {med['riskcov0'][2]:.1f} CPU-s); "
            f"numpy {theirs:.3f} CPU-s (its replicate loop); ratio {ours / theirs:.2f}"
        )
        return 0
    wall, rss, cpu = med["riskcov"][0], max(x[1] for x in runs["riskcov"]), med["riskcov"][2]
    n_wall = med["numpy"][0]
    met = wall <= 60.0 and rss <= 4.0 and wall <= n_wall
    print(
        f"target ({size}): riskcov {wall:.1f} s wall ({cpu:.0f} CPU-s), peak {rss:.2f} GB; "
        f"numpy {n_wall:.1f} s wall; riskcov / numpy {wall / n_wall:.2f}; "
        f"<= 60 s, <= 4 GB, <= numpy: {'met' if met else 'missed'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
