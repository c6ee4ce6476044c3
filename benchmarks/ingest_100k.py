"""Benchmark: `riskcov ingest` of a 100,000-participant run (800,000 items, every signal).

    python benchmarks/ingest_100k.py [--participants N] [--reps R] [--seed S] [--keep DIR] [--file F]

Generates the run with scripts/make_example.py (one few_shot experiment, no failed
participants, so items = 8 x participants) into a temporary folder, then times
`riskcov ingest FILE --warehouse <fresh file>` as a subprocess R times, each into a new
warehouse. Wall time and peak RSS come from /usr/bin/time -v when it exists, else from
perf_counter and resource.getrusage(RUSAGE_CHILDREN) (a running maximum over all children,
so then the peak is reported for all repetitions together), CPU seconds (user + system) from
/usr/bin/time too. `--file` times an existing run file instead of generating one (generating
447 MiB takes minutes). The peak of the summed RSS of the CLI and its decoding processes is
sampled from /proc every 10 ms. Prints every repetition, the medians and one markdown table row.
Targets (issues 12 and 23): < 10 s wall, < 2 GB peak RSS. The line `status:` is the row of
docs/performance.md. `python benchmarks/ingest_stages.py FILE` splits one ingest into its stages.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import make_example, riskcov_env, riskcov_exe, time_v

ROOT = Path(__file__).resolve().parents[1]
DUCKDB_JSON_OBJECT_LIMIT = 16 * 2**20  # DuckDB's default maximum_object_size for read_json
TARGET_WALL_S, TARGET_RSS_BYTES = 10.0, 2 * 2**30


def cpu_seconds(stderr: str) -> float:
    """User + system CPU seconds from the output of /usr/bin/time -v."""
    found = re.findall(r"(?:User|System) time \(seconds\): ([0-9.]+)", stderr)
    return sum(float(x) for x in found) if len(found) == 2 else float("nan")


_PAGE = os.sysconf("SC_PAGE_SIZE")


def _tree(pid: int) -> list[int]:
    """`pid` and its descendants (Linux /proc)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    todo += [int(c) for c in fh.read().split()]
        except OSError:
            pass
    return out


def _resident(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, IndexError):
        return 0


class TreeSampler:
    """The peak of the summed RSS of a process and its descendants (the ingest's decoding
    processes), sampled every 10 ms in a thread."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak = pid, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, sum(map(_resident, _tree(self.pid))))

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def run_once(riskcov: str, run_file: Path, warehouse: Path, expected: str) -> tuple[float, int, float, int]:
    """One ingest into a fresh warehouse: (wall seconds, peak RSS bytes, CPU seconds, peak of
    the process tree's summed RSS). With /usr/bin/time the peak RSS is the largest of the
    processes' (Linux reports a waited-for child's maximum over its descendants), and the CPU
    seconds include the decoding processes'."""
    for stale in (warehouse, warehouse.with_name(warehouse.name + ".wal")):
        stale.unlink(missing_ok=True)
    # --no-publish: the ingest alone, not the BI snapshot a writing command refreshes afterwards
    cmd = [riskcov, "ingest", str(run_file), "--warehouse", str(warehouse), "--no-publish"]
    gnu_time = Path("/usr/bin/time")
    use_time = gnu_time.exists()
    if use_time:
        cmd = [str(gnu_time), "-v", *cmd]
    start = time.perf_counter()
    with subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=riskcov_env()
    ) as running:
        sampler = TreeSampler(running.pid)
        stdout, stderr = running.communicate()
        tree = sampler.stop()
    wall = time.perf_counter() - start
    proc = subprocess.CompletedProcess(cmd, running.returncode, stdout, stderr)
    if proc.returncode != 0 or expected not in proc.stdout:
        raise RuntimeError(f"ingest failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    if use_time:
        wall, rss = time_v(proc.stderr)
        cpu = cpu_seconds(proc.stderr)
    else:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        rss = usage.ru_maxrss * 1024  # kB on Linux
        cpu = usage.ru_utime + usage.ru_stime  # all children so far
    return wall, rss, cpu, tree


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="write the run file and warehouses here")
    parser.add_argument("--file", type=Path, help="time this run file (of --participants) instead")
    args = parser.parse_args(argv)

    mk = make_example()
    riskcov = riskcov_exe()
    with tempfile.TemporaryDirectory(prefix="riskcov-bench-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        run_file = args.file or folder / f"run_{args.participants}.json"
        t0 = time.perf_counter()
        if args.file is None:
            run = mk.make_run(args.participants, seed=args.seed, modes=("few_shot",), failure_rate=0.0)
            mk.write_run(run, run_file)
            del run
        gen_s = time.perf_counter() - t0
        size = run_file.stat().st_size
        n_items = 8 * args.participants
        print(
            f"{'given' if args.file else 'generated'} {run_file.name}: {args.participants} participants, "
            f"{n_items} items, {size / 2**20:.1f} MiB in {gen_s:.1f} s"
        )
        print(f"larger than DuckDB's default JSON object limit (16 MiB): {size > DUCKDB_JSON_OBJECT_LIMIT}")

        expected = f"1 experiment(s), {args.participants} participants, {n_items} items"
        walls, rsses, cpus, trees = [], [], [], []
        for rep in range(args.reps):
            wall, rss, cpu, tree = run_once(riskcov, run_file, folder / "bench.duckdb", expected)
            walls.append(wall)
            rsses.append(rss)
            cpus.append(cpu)
            trees.append(tree)
            print(
                f"rep {rep + 1}: wall {wall:.2f} s, peak RSS {rss / 2**20:.0f} MiB "
                f"(process tree summed: {tree / 2**20:.0f} MiB), CPU {cpu:.1f} s",
                flush=True,
            )

    wall_med, rss_med, cpu_med = statistics.median(walls), statistics.median(rsses), statistics.median(cpus)
    peak = max(*rsses, *trees)  # the CLI's, or its processes' together
    ok = wall_med < TARGET_WALL_S and peak < TARGET_RSS_BYTES
    import duckdb

    print(
        f"median: wall {wall_med:.2f} s, CPU {cpu_med:.1f} s, peak RSS {rss_med / 2**20:.0f} MiB "
        f"(max {max(rsses) / 2**20:.0f} MiB; process tree summed, max {max(trees) / 2**20:.0f} MiB); "
        f"targets < {TARGET_WALL_S:.0f} s, < 2 GiB: "
        f"{'met' if ok else 'MISSED'}; load average {os.getloadavg()[0]:.1f}"
    )
    print(
        "| participants | items | file MiB | median wall s | median peak RSS MiB | reps | duckdb | python |"
    )
    print("|---|---|---|---|---|---|---|---|")
    print(
        f"| {args.participants} | {n_items} | {size / 2**20:.1f} | {wall_med:.2f} "
        f"| {rss_med / 2**20:.0f} | {args.reps} | {duckdb.__version__} "
        f"| {platform.python_version()} |"
    )
    # the row of docs/performance.md, for re-running the benchmark quietly
    print(
        f"status: | ingest {args.participants:,} participants ({n_items:,} items, {size / 2**20:.0f} MiB) "
        f"| < 10 s, < 2 GB | {args.reps} runs: {wall_med:.1f} s, {cpu_med:.1f} CPU-s, "
        f"{peak / 2**30:.2f} GiB (load average {os.getloadavg()[0]:.1f}) | "
        f"{'met' if ok else 'missed'} |"
    )
    summary = {
        "wall_s": walls,
        "cpu_s": cpus,
        "peak_rss_bytes": rsses,
        "tree_peak_rss_bytes": trees,
        "file_bytes": size,
    }
    print(json.dumps(summary))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
