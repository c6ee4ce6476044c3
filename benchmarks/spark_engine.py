"""Benchmark: `evaluate --engine spark` (local[2]) vs the DuckDB engine vs the numpy comparator.

    python benchmarks/spark_engine.py [--samples N] [--resamples B] [--reps R] [--master M]
                                      [--spark-conf KEY=VALUE ...]

One Parquet file (per_sample_1m.py's generator, one seed: three score columns, 0/1 losses,
every sample its own cluster) evaluated with `--confidence all --bootstrap-resamples B` in
this process, alternated R times:

- `duckdb`: the DuckDB engine on the run ingested once beforehand (the ingest timed apart);
- `spark`: `--engine spark --input FILE`, the file read by Spark where it lies (its checks,
  cluster numbering and the bootstrap), in a session started once beforehand (the start,
  a JVM, timed apart; Spark Connect would hold one for many evaluations);
- `numpy`: per_sample_floor.py's per-replicate work on the same data and draws (AURC and
  AUGRC of the three scores), its milliseconds per replicate times B: a lower bound.

Spark's work runs in the JVM, so its CPU time is not this process's: wall times only, with
the load average beside them (a shared machine's wall times are noisy). Prints each
repetition and one status line of medians.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from per_sample_1m import generate


def _evaluate(
    wh: Path, spec: str, engine: str, resamples: int, out: Path, master: str, conf: dict[str, str]
) -> float:
    from riskcov.evaluation.options import Options
    from riskcov.evaluation.run import evaluate_and_store
    from riskcov.warehouse.connection import connect

    opts = Options(
        inputs=[spec], seeds=["0"], confidence="all", bootstrap_resamples=resamples, engine=engine,
        spark_master=master if engine == "spark" else None, spark_conf=conf if engine == "spark" else {},
    )  # fmt: skip
    con = connect(wh)
    start = time.perf_counter()
    try:
        evaluate_and_store(con, opts, out, wh)
    finally:
        con.close()
    return time.perf_counter() - start


def _differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two artifacts' values differ beyond 1e-12 (relative for percentages), as the
    Spark tests compare them: a timing is only reported beside equal results."""
    if isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b):
        return [d for k in a for d in _differences(a[k], b[k], f"{path}/{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in _differences(x, y, f"{path}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        tol = 1e-12 * max(1.0, abs(a)) if path.endswith("_pct") else 1e-12
        same = math.isclose(a, b, rel_tol=0, abs_tol=tol) or (math.isnan(a) and math.isnan(b))
        return [] if same else [path]
    return [] if a == b else [path]


def _numpy(data: Path, resamples: int) -> float:
    """per_sample_floor.py's wall milliseconds per replicate on `data`, times `resamples`."""
    floor = Path(__file__).with_name("per_sample_floor.py")
    cmd = [sys.executable, str(floor), "--data", str(data), "--replicates", str(resamples), "--seed", "42"]
    text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    match = re.search(r"per replicate: (\d+) ms wall", text)
    if match is None:
        sys.exit(f"per_sample_floor.py printed no timing: {text}")
    return int(match.group(1)) * resamples / 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--spark-conf", action="append", default=[], help="KEY=VALUE, as evaluate's")
    args = parser.parse_args()
    from riskcov.cli import app
    from riskcov.evaluation.options import spark_settings
    from riskcov.evaluation.spark_session import session

    conf = spark_settings(args.spark_conf)

    with tempfile.TemporaryDirectory(prefix="riskcov-spark-bench-") as tmp:
        work = Path(tmp)
        data = work / "bench.parquet"
        generate(data, args.samples, 1, 0)
        wh = work / "bench.duckdb"
        start = time.perf_counter()
        app(["ingest", str(data), "--warehouse", str(wh), "--no-publish"], standalone_mode=False)
        ingest = time.perf_counter() - start
        start = time.perf_counter()
        spark = session(args.master, conf)
        spark.sql("SELECT 1").collect()
        started = time.perf_counter() - start
        print(f"ingest into DuckDB {ingest:.1f} s; Spark session start {started:.1f} s", flush=True)
        times: dict[str, list[float]] = {"duckdb": [], "spark": [], "numpy": []}
        loads = []
        for rep in range(args.reps):
            times["duckdb"].append(
                _evaluate(wh, data.stem, "duckdb", args.resamples, work / "d.json", args.master, conf)
            )
            times["spark"].append(
                _evaluate(wh, str(data), "spark", args.resamples, work / "s.json", args.master, conf)
            )
            arts = [json.loads((work / f"{e}.json").read_text())["confidence_variants"] for e in "ds"]
            diffs = _differences(*arts)
            if diffs:
                sys.exit(f"spark and duckdb differ beyond 1e-12 at {len(diffs)} values, e.g. {diffs[:3]}")
            times["numpy"].append(_numpy(data, args.resamples))
            loads.append(os.getloadavg()[0])
            print(
                f"  rep {rep + 1}: duckdb {times['duckdb'][-1]:.1f} s, spark {times['spark'][-1]:.1f} s, "
                f"numpy {times['numpy'][-1]:.1f} s (load {loads[-1]:.1f}); "
                "artifacts equal to 1e-12",
                flush=True,
            )
        spark.stop()
    med = {k: statistics.median(v) for k, v in times.items()}
    print(
        f"spark_engine: {args.samples:,} samples x 3 scores x {args.resamples} resamples, medians of "
        f"{args.reps} alternated: duckdb {med['duckdb']:.1f} s, spark {args.master} {med['spark']:.1f} s "
        f"({med['spark'] / med['duckdb']:.1f}x duckdb), numpy {med['numpy']:.1f} s; session start "
        f"{started:.1f} s, ingest {ingest:.1f} s; load average {statistics.median(loads):.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
