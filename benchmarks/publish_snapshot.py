"""Benchmark: `riskcov publish` and a BI query on the snapshot versus on the warehouse.

    python benchmarks/publish_snapshot.py [--cases example,p2000x3] [--reps R]

`example` is the shipped examples/example_run.json (41 participants, zero_shot + few_shot);
`p2000x3` adds two synthetic 2,000-participant runs (both modes) to it, the issue's "3-run
warehouse with a 2,000-participant run". Times `riskcov publish` as a subprocess (wall, peak
RSS) from scratch and again (both a copy of the file: the warehouse keeps its metric tables),
then README query 1 (AURC of every few-shot experiment) through a read-only connection to the
snapshot and to the warehouse (both a scan of the table `metrics`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
from common import ROOT, make_example, riskcov_exe, time_v

QUERY = """
SELECT run_id, run_timestamp, csf, cmax, aurc_full, augrc_full, eaurc
FROM v_metrics
WHERE mode = 'few_shot' AND loss = 'abs_norm' AND csf = 'llm'
ORDER BY run_timestamp, run_id
"""
CASES = {"example": 0, "p2000x3": 2}  # name: synthetic 2,000-participant runs added


def _publish(exe: str, wh: Path) -> tuple[float, float]:
    cmd = [exe, "publish", "--warehouse", str(wh)]
    if Path("/usr/bin/time").exists():
        p = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True)
        if p.returncode:
            sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr[-2000:]}")
        wall, rss = time_v(p.stderr)
        return wall, rss / 2**30
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start, float("nan")


def _query_seconds(path: Path, reps: int) -> float:
    times = []
    for _ in range(reps):
        con = duckdb.connect(str(path), read_only=True)
        start = time.perf_counter()
        con.execute(QUERY).fetchall()
        times.append(time.perf_counter() - start)
        con.close()
    return statistics.median(times)


def run_case(name: str, reps: int, workdir: Path) -> str:
    exe = riskcov_exe()
    wh = workdir / name / "riskcov.duckdb"
    files = [ROOT / "examples" / "example_run.json"]
    mk = make_example()
    for seed in range(CASES[name]):
        path = workdir / f"p2000-s{seed}.json"
        mk.write_run(mk.make_run(2_000, seed=seed), path)
        files.append(path)
    env = {**os.environ, "RISKCOV_PUBLISH": "0"}
    subprocess.run(
        [exe, "ingest", *map(str, files), "--warehouse", str(wh)], check=True, capture_output=True, env=env
    )
    snap = wh.parent / "riskcov-bi.duckdb"
    runs, again = [], []
    for i in range(reps):
        snap.unlink(missing_ok=True)  # a first publish computes metrics and rc_points
        runs.append(_publish(exe, wh))
        again.append(_publish(exe, wh)[0])  # unchanged inputs: copied from the old snapshot
        print(
            f"  {name} rep {i + 1}: publish {runs[-1][0]:.2f} s, {runs[-1][1]:.2f} GB; "
            f"again {again[-1]:.2f} s"
        )
    on_snapshot = _query_seconds(snap, reps)
    on_warehouse = _query_seconds(wh, reps)
    wall = statistics.median(w for w, _ in runs)
    rss = max(r for _, r in runs)
    mib = snap.stat().st_size / 2**20
    return (
        f"| {name} ({len(files)} runs) | {wall:.2f} s, {rss:.2f} GB, {mib:.0f} MiB | "
        f"{statistics.median(again):.2f} s | "
        f"{on_snapshot * 1000:.1f} ms | {on_warehouse:.2f} s |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="riskcov-bench-") as tmp:
        rows = [run_case(name, args.reps, Path(tmp)) for name in args.cases.split(",")]
    print(
        "\n| warehouse | publish: wall, peak RSS, size | again, same inputs | query 1: snapshot | warehouse |"
    )
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
