"""Profile: where a PHQ-8 run ingest spends its time, stage by stage, in one process.

    python benchmarks/ingest_stages.py FILE [--warehouse W] [--statements] [--memory-limit 1GB] [--whole]
        [--store-threads N] [--processes N]

Runs the stages of `riskcov ingest FILE --no-publish` as riskcov.ingest does (read; parse() =
the typed decode, or json.loads + checks, + columns, of a small file, the rest of the document
only of a large one; store, which decodes a large file's participants batch by batch while it
inserts the batch before, in child processes above decoders.PROCESS_BYTES (`--processes 0`:
on this thread); materialise), into a fresh warehouse, and
prints per stage the wall seconds, CPU seconds (process_time: every thread of the process) and the peak
RSS while the stage ran (sampled every 5 ms from /proc/self/statm). `--statements` also times
every SQL statement materialise.refresh executes (a wrapper around the connection's execute).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * _PAGE


class Sampler:
    """The maximum RSS since the last reset, sampled in a thread."""

    def __init__(self) -> None:
        self.peak = _rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, _rss())

    def reset(self) -> None:
        self.peak = _rss()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


ROWS: list[tuple[str, float, float, int]] = []


@contextmanager
def stage(name: str, sampler: Sampler) -> Iterator[None]:
    sampler.reset()
    w0, c0 = time.perf_counter(), time.process_time()
    yield
    w, c = time.perf_counter() - w0, time.process_time() - c0
    peak = max(sampler.peak, _rss())
    ROWS.append((name, w, c, peak))
    print(f"{name:<28} wall {w:7.2f} s  CPU {c:7.2f} s  peak RSS {peak / 2**20:7.0f} MiB", flush=True)


class Timed:
    """A connection proxy that times every execute (for --statements)."""

    def __init__(self, con: Any) -> None:
        self._con = con
        self.log: list[tuple[float, float, str]] = []

    def execute(self, sql: str, *args: Any) -> Any:
        w0, c0 = time.perf_counter(), time.process_time()
        out = self._con.execute(sql, *args)
        self.log.append((time.perf_counter() - w0, time.process_time() - c0, " ".join(sql.split())))
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--warehouse", type=Path)
    parser.add_argument("--statements", action="store_true")
    parser.add_argument("--memory-limit", help="DuckDB memory_limit while materialising, e.g. 1GB")
    parser.add_argument("--whole", action="store_true", help="decode the file whole in parse(), then store")
    parser.add_argument("--store-threads", type=int, help="DuckDB threads while storing (default: as set)")
    parser.add_argument(
        "--processes", type=int, help="decoding processes (0: decode on this thread, as a small file)"
    )
    args = parser.parse_args()

    import importlib

    from riskcov.warehouse import metric_tables as materialise
    from riskcov.warehouse.duckdb_helpers import transaction

    parse_mod = importlib.import_module("riskcov.formats.phq8_json.parse")
    from riskcov.evaluation.prepared_warehouse import open_warehouse
    from riskcov.formats.phq8_json import decoders, store, typed
    from riskcov.ingest import _insert_experiments

    # a large run's participants are decoded batch by batch inside the store stage, each batch
    # while the one before is inserted on a worker thread (formats/phq8_json/batched.py):
    # wall seconds of each side, summed over the batches
    spent = {"decode": 0.0, "lean": 0.0, "insert": 0.0, "batches": 0, "receive": 0.0}

    def clocked(key: str, fn: Any) -> Any:
        def run(*a: Any, **k: Any) -> Any:
            w0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                spent[key] += time.perf_counter() - w0
                spent["batches"] += key == "insert"

        return run

    typed.experiment_rows = clocked("decode", typed.experiment_rows)
    decoders.experiment_rows = typed.experiment_rows  # the first batch, decoded here
    store.lean = clocked("lean", store.lean)
    store._insert = clocked("insert", store._insert)
    decoders._receive = clocked("receive", decoders._receive)
    if args.processes == 0:
        decoders.PROCESS_BYTES = 2**62
    elif args.processes:
        decoders.PROCESSES = args.processes
    if args.whole:
        typed.BATCH_BYTES = 2**62

    sampler = Sampler()
    with tempfile.TemporaryDirectory(prefix="riskcov-stages-") as tmp:
        wh = args.warehouse or Path(tmp) / "w.duckdb"
        wh.unlink(missing_ok=True)
        with stage("open warehouse", sampler), open_warehouse(wh):
            pass
        with open_warehouse(wh) as con:
            with stage("read file", sampler):
                data = args.file.read_bytes()
            with stage("parse()", sampler):
                run = parse_mod.parse(con, args.file, data)
            print(f"  of which decoding participants: wall {spent['decode']:.2f} s")
            del data
            timed = Timed(con)
            with transaction(con):
                con.execute(
                    "INSERT INTO runs VALUES (?, 'x', 'x', now()::TIMESTAMP, NULL, NULL, '{}', ?, 'x')",
                    [run.run_id, run.input_format],
                )
                decoded = spent["decode"]
                threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
                if args.store_threads:
                    con.execute(f"SET threads = {args.store_threads}")
                with stage("store (experiments+fill)", sampler):
                    ids = _insert_experiments(con, run)
                con.execute(f"SET threads = {threads}")
                children = resource.getrusage(resource.RUSAGE_CHILDREN)
                print(
                    f"  of which on this thread: decoding {spent['decode'] - decoded:.2f} s, "
                    f"lean columns {spent['lean']:.2f} s, waiting for the decoding processes "
                    f"{spent['receive']:.2f} s; on the worker: {spent['batches']} "
                    f"inserts {spent['insert']:.2f} s (wall); the decoding processes' CPU "
                    f"{children.ru_utime + children.ru_stime:.2f} s, peak RSS "
                    f"{children.ru_maxrss / 2**10:.0f} MiB (the largest child)"
                )
                if args.memory_limit:
                    con.execute(f"SET memory_limit = '{args.memory_limit}'")
                with stage("materialise", sampler):
                    materialise.refresh(timed if args.statements else con, ids)  # type: ignore[arg-type]
                sampler.reset()
                w0, c0 = time.perf_counter(), time.process_time()
            # the transaction's COMMIT (the rows written to the warehouse file)
            w, c = time.perf_counter() - w0, time.process_time() - c0
            peak = max(sampler.peak, _rss())
            print(f"{'commit':<28} wall {w:7.2f} s  CPU {c:7.2f} s  peak RSS {peak / 2**20:7.0f} MiB")
    sampler.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(f"process peak RSS (ru_maxrss): {peak:.0f} MiB")
    if args.statements:
        for w, c, sql in timed.log:
            print(f"  {w:7.2f} s  CPU {c:7.2f} s  {sql[:150]}")


if __name__ == "__main__":
    main()
