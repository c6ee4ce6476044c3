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
    args = parser.parse_args()
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


if __name__ == "__main__":
    sys.exit(main())
