"""Benchmark: `riskcov evaluate` with the participant-cluster bootstrap (issue targets).

    python benchmarks/evaluate_bootstrap.py [--cases p41-all,p41-default,...] [--reps R]

Each case generates a run with scripts/make_example.py (one few_shot experiment, integer
evidence counts, ~30 % abstention), ingests it into a fresh warehouse once, then times
`riskcov evaluate --input <run_id> --mode few_shot --confidence C --bootstrap-resamples B`
as a subprocess R times (wall time and peak RSS from /usr/bin/time -v), and separately the
in-process `riskcov.evaluate.run` call (no interpreter start, no warehouse open).
Prints each repetition, the medians and markdown table rows for the README.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import make_example, riskcov_exe, time_v

ROOT = Path(__file__).resolve().parents[1]
# name: (participants, confidence, resamples, target seconds, reference seconds)
CASES: dict[str, tuple[int, str, int, float, str]] = {
    "p41-default": (41, "default", 10_000, 0.5, "~24 s"),
    "p41-all": (41, "all", 10_000, 2.0, "~190 s"),
    "p2000-default": (2_000, "default", 10_000, 20.0, "~20 min"),
    "p100k-default": (100_000, "default", 1_000, 120.0, "-"),
}


def _timed(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (GB) of one subprocess."""
    if Path("/usr/bin/time").exists():
        p = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True)
        if p.returncode:
            sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr[-2000:]}")
        wall, rss = time_v(p.stderr)
        return wall, rss / 2**30
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start, float("nan")


def run_case(name: str, reps: int, workdir: Path) -> str:
    participants, confidence, resamples, target, reference = CASES[name]
    mk = make_example()
    run = mk.make_run(participants, seed=7, modes=("few_shot",), failure_rate=0.0)
    path = workdir / f"{name}.json"
    mk.write_run(run, path)
    wh = workdir / f"{name}.duckdb"
    exe = riskcov_exe()
    subprocess.run([exe, "ingest", str(path), "--warehouse", str(wh)], check=True, capture_output=True)
    run_id = run["run_metadata"]["run_id"]
    cmd = [
        exe,
        "evaluate",
        "--input",
        run_id,
        "--mode",
        "few_shot",
        "--confidence",
        confidence,
        "--bootstrap-resamples",
        str(resamples),
        "--warehouse",
        str(wh),
        "--output",
        str(workdir / f"{name}.artifact.json"),
    ]
    walls, rsss = [], []
    for i in range(reps):
        wall, rss = _timed(cmd)
        walls.append(wall)
        rsss.append(rss)
        print(f"  {name} rep {i + 1}: {wall:.2f} s wall, {rss:.2f} GB peak RSS", flush=True)
    from riskcov import evaluate
    from riskcov.warehouse import open_warehouse

    inproc = []
    for _ in range(reps):
        with open_warehouse(wh) as con:
            start = time.perf_counter()
            evaluate.run(
                con,
                evaluate.Options(
                    inputs=[run_id], modes=["few_shot"], confidence=confidence, bootstrap_resamples=resamples
                ),
            )
            inproc.append(time.perf_counter() - start)
    wall, rss, core = statistics.median(walls), max(rsss), statistics.median(inproc)
    verdict = "met" if wall <= target else "missed"
    return (
        f"| {participants:,} participants, `{confidence}`, {resamples:,} resamples | "
        f"≤ {target:g} s (reference {reference}) | {wall:.2f} s ({core:.2f} s in-process), "
        f"{rss:.2f} GB | {verdict} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="riskcov-bench-") as tmp:
        for name in args.cases.split(","):
            reps = 1 if name == "p100k-default" else args.reps
            rows.append(run_case(name, reps, Path(tmp)))
    print("\n| case | target | median wall (in-process), peak RSS | |\n|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
