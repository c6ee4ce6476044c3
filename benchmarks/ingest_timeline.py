"""Profile: when each process of `riskcov ingest FILE` is busy, the parent's threads and its
decoding processes, on a time line (where a core idles is what the critical path is made of).

    python benchmarks/ingest_timeline.py FILE [--bucket 0.25] [--keep DIR]

Runs `riskcov ingest FILE --warehouse <fresh file> --no-publish` in a fresh interpreter through
the console's `main`, with stage marks (monotonic clock, one line each) written by wrappers of:
`open_warehouse` (entered, opened, closed), `ingest_file`, the format's `parse`, the store
(`_insert_experiments`), each batch decoded in the parent (`decoders._columns`), received from
a decoding process (`decoders._receive`) and inserted (`store._insert`, on the store's worker
thread), `store.check_items`, the metric tables (`metric_tables.refresh`), and `store_run`, which
ends with the COMMIT. Meanwhile the CPU ticks of every thread of the CLI and of its child
processes are read from /proc every 10 ms. Prints per bucket of `--bucket` seconds the cores used
by the CLI's main thread (m), its other threads (t: DuckDB's, the store's worker, the read
ahead) and the decoding processes (c), with the marks that fall in it, then each stage's wall
span. On a machine shared with other work the process gets a share of the cores and the line
says little: run it in a quiet hour.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HZ = os.sysconf("SC_CLK_TCK")


def _child(marks: str, argv: list[str]) -> None:
    """In the CLI's process: wrap the stages with marks, then run the command."""
    import threading
    from contextlib import contextmanager

    out = open(marks, "a", buffering=1)  # noqa: SIM115 (open until os._exit)

    def mark(label: str) -> None:
        out.write(f"{time.monotonic():.4f} {threading.get_native_id()} {label}\n")

    import riskcov.cli as cli
    import riskcov.cli.ingest as cli_ingest
    import riskcov.ingest as ing
    from riskcov.formats.phq8_json import decoders, store
    from riskcov.warehouse import metric_tables

    def wrap(mod: Any, name: str, label: str) -> None:
        fn = getattr(mod, name)

        def run(*a: Any, **k: Any) -> Any:
            mark(label + "+")
            try:
                return fn(*a, **k)
            finally:
                mark(label + "-")

        setattr(mod, name, run)

    for mod, name, label in (
        (ing, "ingest_file", "ingest_file"),
        (ing, "_insert_experiments", "store"),
        (ing, "store_run", "store_run"),
        (metric_tables, "refresh", "metric_tables"),
        (decoders, "_receive", "receive"),
        (decoders, "_columns", "decode_here"),
        (store, "_insert", "insert"),
        (store, "check_items", "check_items"),
    ):
        wrap(mod, name, label)
    load_format = ing.load_format

    def loaded(name: str) -> Any:
        fmt = load_format(name)
        if not getattr(fmt, "_timeline", False):
            wrap(fmt, "parse", "parse")
            fmt._timeline = True
        return fmt

    ing.load_format = loaded
    opened = cli_ingest.open_warehouse

    @contextmanager
    def open_warehouse(*a: Any, **k: Any) -> Any:
        mark("open+")
        with opened(*a, **k) as con:
            mark("open-")
            yield con
            mark("close+")
        mark("close-")

    cli_ingest.open_warehouse = open_warehouse
    mark("imported")
    sys.argv = ["riskcov", *argv]
    with contextlib.suppress(SystemExit):
        cli.main()
    mark("end")
    out.close()
    os._exit(0)


def _ticks(path: str) -> int | None:
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                found += [int(c) for c in fh.read().split()]
    except OSError:
        pass
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--bucket", type=float, default=0.25, help="seconds per line")
    parser.add_argument(
        "--keep", type=Path, help="folder for the warehouse and the marks (default: a temp one)"
    )
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="riskcov-timeline-"))
    folder.mkdir(parents=True, exist_ok=True)
    marks, wh = folder / "marks", folder / "w.duckdb"
    for p in (marks, wh, Path(f"{wh}.wal")):
        p.unlink(missing_ok=True)
    argv = ["ingest", str(args.file), "--warehouse", str(wh), "--no-publish"]
    code = f"from ingest_timeline import _child; _child({str(marks)!r}, {argv!r})"
    path = os.pathsep.join(p for p in (str(Path(__file__).parent), os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, RISKCOV_PUBLISH="0", PYTHONPATH=path)
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", code], env=env)
    last: dict[str, int] = {}
    samples: list[tuple[float, str, int]] = []  # (time, kind, ticks since the last sample)
    while proc.poll() is None:
        now = time.monotonic() - t0
        seen: dict[str, int] = {}
        try:
            for task in os.listdir(f"/proc/{proc.pid}/task"):
                t = _ticks(f"/proc/{proc.pid}/task/{task}/stat")
                if t is not None:
                    seen["m" if int(task) == proc.pid else f"t{task}"] = t
        except OSError:
            pass
        for child in _children(proc.pid):
            t = _ticks(f"/proc/{child}/stat")
            if t is not None:
                seen[f"c{child}"] = t
        for key, t in seen.items():
            if t > last.get(key, 0):
                samples.append((now, key[0], t - last.get(key, 0)))
            last[key] = t
        time.sleep(0.01)
    total = time.monotonic() - t0
    n = int(total / args.bucket) + 1
    grid: dict[str, list[float]] = collections.defaultdict(lambda: [0.0] * n)
    for at, kind, ticks in samples:
        grid[kind][min(int(at / args.bucket), n - 1)] += ticks / HZ
    stamps = [(float(ts) - t0, label) for ts, _, label in (line.split() for line in marks.open())]
    print(
        f"exit {proc.returncode}, wall {total:.2f} s; CPU-s (sampled): main thread {sum(grid['m']):.2f}, "
        f"other threads {sum(grid['t']):.2f}, decoding processes {sum(grid['c']):.2f}"
    )
    shown = [(at, label) for at, label in stamps if not label.startswith(("insert", "receive"))]
    k = 0
    for b in range(n):
        m, t, c = (grid[x][b] / args.bucket for x in "mtc")
        here = []
        while k < len(shown) and shown[k][0] < (b + 1) * args.bucket:
            here.append(f"{shown[k][1]}@{shown[k][0]:.2f}")
            k += 1
        bar = "#" * round(m * 10) + "+" * round(t * 10) + "c" * round(c * 10)
        print(f"{b * args.bucket:7.2f}  m {m:4.2f} t {t:4.2f} c {c:4.2f} |{bar:<22}| {' '.join(here)}")
    spans: dict[str, list[float]] = collections.defaultdict(list)
    opened_at: dict[str, list[float]] = collections.defaultdict(list)
    for at, label in stamps:
        if label.endswith("+"):
            opened_at[label[:-1]].append(at)
        elif label.endswith("-") and opened_at[label[:-1]]:
            spans[label[:-1]].append(at - opened_at[label[:-1]].pop())
    for label, walls in spans.items():
        print(f"{label:<14} {len(walls):3d} x  {sum(walls):7.2f} s wall")
    print(f"marks: {marks}")


if __name__ == "__main__":
    main()
