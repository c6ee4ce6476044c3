"""Benchmark: the warehouse's metric tables (issue 11, item 8) on a large run.

    python benchmarks/warehouse_metrics.py [--participants N] [--reps R] [--mat-reps M]
        [--bi-python PY] [--keep DIR] [--warehouse W]

Generates an N-participant run (scripts/make_example.py, one few_shot experiment), ingests it
once with `riskcov ingest` (wall, CPU and peak RSS of the process, from /usr/bin/time -v), then:

- the materialisation alone: `riskcov.warehouse.metric_tables.refresh` of that experiment, in-process, in a
  transaction rolled back afterwards (wall and CPU seconds, M times; opening a warehouse whose
  installed SQL differs recomputes the tables once before, committed);
- README query 1 on the warehouse through a read-only connection of this DuckDB (R times);
- with --bi-python (a venv's python with duckdb 1.4), README query 1 through that DuckDB in a
  subprocess (wall of the query inside it, and the process's peak RSS), R times.

Prints every measurement and the medians.
"""

from __future__ import annotations

import argparse
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import make_example, riskcov_exe

ROOT = Path(__file__).resolve().parents[1]
QUERY_1 = re.findall(r"```sql\n(.*?)```", (ROOT / "README.md").read_text(), re.S)[0]
READER = (
    "import sys, time, duckdb\n"
    "con = duckdb.connect(sys.argv[1], read_only=True)\n"
    "t = time.perf_counter(); c = time.process_time()\n"
    "rows = con.execute(sys.argv[2]).fetchall()\n"
    "print(len(rows), time.perf_counter() - t, time.process_time() - c, duckdb.__version__)\n"
)


def timed(cmd: list[str]) -> tuple[str, float, float, int]:
    """stdout, wall s, CPU s (user + sys) and peak RSS bytes of a subprocess (/usr/bin/time -v)."""
    proc = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")

    def field(name: str) -> str:
        found = re.search(re.escape(name) + r": (\S+)", proc.stderr)
        assert found, name
        return found.group(1)

    wall = 0.0
    for part in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        wall = wall * 60 + float(part)
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    return proc.stdout, wall, cpu, int(field("Maximum resident set size (kbytes)")) * 1024


def materialise_once(warehouse: Path) -> tuple[float, float, int]:
    """refresh() of every experiment, rolled back: (wall s, CPU s, metric rows)."""
    from riskcov.evaluation.prepared_warehouse import open_warehouse
    from riskcov.warehouse.metric_tables import refresh

    with open_warehouse(warehouse) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            t, c = time.perf_counter(), time.process_time()
            rows = refresh(con)
            return time.perf_counter() - t, time.process_time() - c, rows
        finally:
            con.execute("ROLLBACK")


def query_once(warehouse: Path) -> tuple[float, int]:
    import duckdb

    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        t = time.perf_counter()
        rows = con.execute(QUERY_1).fetchall()
        return time.perf_counter() - t, len(rows)
    finally:
        con.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=5, help="README query 1 repetitions")
    parser.add_argument("--mat-reps", type=int, default=1, help="materialisation repetitions")
    parser.add_argument("--bi-python", help="a python whose duckdb is 1.4 (README query 1 there)")
    parser.add_argument("--keep", type=Path, help="write the run file and warehouse here")
    parser.add_argument("--warehouse", type=Path, help="an ingested warehouse: measure it, ingest nothing")
    args = parser.parse_args(argv)
    mk = make_example()
    with tempfile.TemporaryDirectory(prefix="riskcov-bench-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        run_file = folder / f"run_{args.participants}.json"
        warehouse = args.warehouse or folder / "metrics_bench.duckdb"
        for stale in () if args.warehouse else (warehouse, warehouse.with_name(warehouse.name + ".wal")):
            stale.unlink(missing_ok=True)
        if not args.warehouse and not run_file.exists():
            run = mk.make_run(args.participants, seed=0, modes=("few_shot",), failure_rate=0.0)
            mk.write_run(run, run_file)
            del run
        cmd = [riskcov_exe(), "ingest", str(run_file), "--no-publish", "--warehouse", str(warehouse)]
        if not args.warehouse:
            out, wall, cpu, rss = timed(cmd)
            gib = rss / 2**30
            print(
                f"ingest (with the metric tables): wall {wall:.1f} s, CPU {cpu:.1f} s, peak RSS {gib:.2f} GiB"
            )
            print("  " + out.strip(), flush=True)
        mats = [materialise_once(warehouse) for _ in range(args.mat_reps)]
        for w, c, n in mats:
            print(f"materialise alone: wall {w:.2f} s, CPU {c:.2f} s, {n} metric rows", flush=True)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # kB on Linux
        print(f"materialise: this process's peak RSS {peak:.2f} GiB")
        print(
            f"materialise median: wall {statistics.median(m[0] for m in mats):.2f} s, "
            f"CPU {statistics.median(m[1] for m in mats):.2f} s"
        )
        queries = [query_once(warehouse) for _ in range(args.reps)]
        print(
            f"README query 1, this DuckDB: median {statistics.median(q[0] for q in queries) * 1000:.1f} ms "
            f"({queries[0][1]} rows), all {[round(q[0] * 1000, 1) for q in queries]} ms"
        )
        if args.bi_python:
            got = [timed([args.bi_python, "-c", READER, str(warehouse), QUERY_1]) for _ in range(args.reps)]
            inner = [float(g[0].split()[1]) for g in got]
            version = got[0][0].split()[3]
            print(
                f"README query 1, duckdb {version}: median {statistics.median(inner) * 1000:.1f} ms, "
                f"process peak RSS median {statistics.median(g[3] for g in got) / 2**20:.0f} MiB "
                f"(process wall {statistics.median(g[1] for g in got):.2f} s)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
