"""A large run's participant batches decoded by child processes while the parent stores them.

The typed decode (msgspec, the checks and the columns: typed.py) is Python holding the GIL,
so a thread beside it cannot insert meanwhile; a child process decodes on the other core
(docs/performance.md#ingest). The parent cuts each experiment's participant list into batches
(byte ranges, `Participants.spans`) and sends each to a child over a pipe, with the list's
first participants once (`structs.probe`: what the participant struct is made from); a child
sends back the batch's store columns (`lean.lean`) or that it refused the batch. Batches go to
the children in turn and come back in file order; participant ids are checked unique across
batches here. A refusal is typed.Refused in the parent: the caller falls back to the full
checker, so every message is that of the file parsed whole.

The children die with the parent: a child is killed by the kernel when the parent dies
(Linux's parent-death signal), ends at end of file on its pipe, and is killed when the batches
stop early (`Decoders.close`). A child is a fresh interpreter (`python -c`, the parent's
sys.path), not a fork: the parent's DuckDB threads are running by then.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import traceback
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection, Pipe
from typing import Any, NoReturn

from riskcov.errors import ResourceError
from riskcov.formats.phq8_json.document import gc_paused
from riskcov.formats.phq8_json.lean import LeanRows, lean
from riskcov.formats.phq8_json.structs import participant_type, probe
from riskcov.formats.phq8_json.typed import FAILED, Participants, Refused, experiment_rows

# participants' text (bytes, all experiments) above which the batches are decoded in child
# processes: below it a process start (an interpreter and its imports) costs more than the
# overlap gains (docs/performance.md#ingest)
PROCESS_BYTES = 96 * 2**20
# children decoding in turn: a batch's decode costs more than its insert, so two keep the
# inserting parent fed
PROCESSES = 2
_PR_SET_PDEATHSIG = 1


class Decoders:
    """Child processes decoding batches in turn; a context manager that ends them."""

    def __init__(self, processes: int = PROCESSES) -> None:
        self._children: list[tuple[subprocess.Popen[bytes], Connection]] = []
        try:
            for _ in range(processes):
                self._children.append(_start())
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> Decoders:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End every child: idle ones at end of file on their pipe, the rest killed."""
        for proc, conn in self._children:
            conn.close()
            try:
                proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._children.clear()

    def lean_batches(
        self, ids: list[int], lists: list[Participants], size: int
    ) -> Iterator[tuple[int, LeanRows]]:
        """Each experiment's batches of about `size` bytes as (experiment id, store columns), in
        file order; typed.Refused when a batch is refused or an id repeats across batches. The
        first batch is decoded here while the children start (an interpreter and its imports)."""
        jobs = ((ids[k], k, span) for k, p in enumerate(lists) for span in p.spans(size))
        waiting: deque[tuple[int, int, int]] = deque()  # experiment id, list index, child
        shapes: dict[int, int] = {}  # child -> index of the list whose probe it has
        probes: dict[int, bytes] = {}  # list index -> its probe
        seen: dict[int, set[int]] = {}  # list index -> its participant ids so far
        turn = 0

        def probe_of(k: int) -> bytes:
            if k not in probes:  # the struct is made from the first batch's participants
                first = next(lists[k].spans(size))
                probes[k] = _probe(b"[" + lists[k].data[first[0] : first[1]] + b"]")
            return probes[k]

        def send() -> None:
            nonlocal turn
            job = next(jobs, None)
            if job is None:
                return
            eid, k, (at, end) = job
            child = turn % len(self._children)
            conn = self._children[child][1]
            try:
                if shapes.get(child) != k:
                    conn.send(("probe", probe_of(k)))
                    shapes[child] = k
                conn.send(("batch", None))
                conn.send_bytes(lists[k].data, at, end - at)
            except OSError:
                raise _ended(self._children[child][0]) from None
            waiting.append((eid, k, child))
            turn += 1

        def accept(eid: int, k: int, rows: LeanRows) -> tuple[int, LeanRows]:
            pids = rows.participants.columns["participant_id"].tolist()
            if not seen.setdefault(k, set()).isdisjoint(pids):
                raise Refused  # a participant id of an earlier batch of the experiment
            seen[k].update(pids)
            lists[k].count(len(pids), len(rows.items.columns["participant_id"]))
            return eid, rows

        head = next(jobs, None)
        if head is None:
            return
        for _ in self._children:
            send()
        eid, k, (at, end) = head
        try:
            yield accept(eid, k, _columns(lists[k].data[at:end], participant_type(probe_of(k))))
        except FAILED as exc:
            raise Refused from exc
        while waiting:
            eid, k, child = waiting.popleft()
            reply = _receive(*self._children[child])
            send()  # the child decodes its next batch while this one is stored
            yield accept(eid, k, reply)


_early = threading.local()  # `started_early`'s processes for this thread's file, or _NONE


class _None:
    """No process could be started early: the store does not try again."""


_NONE = _None()


def start() -> Decoders | None:
    """The decoding processes (those started early for this file, else new ones), or None when
    no process can be started here (the batches are then decoded on the ingest's thread)."""
    ready = getattr(_early, "pool", None)
    if ready is not None:
        _early.pool = None
        return ready if isinstance(ready, Decoders) else None
    try:
        return Decoders()
    except OSError:
        return None


@contextmanager
def started_early(file_bytes: int) -> Iterator[None]:
    """For the block (parsing and storing one file of `file_bytes` bytes): when the file is
    large enough that its participants may take the decoding processes, start them now, so
    that their start (an interpreter and its imports) overlaps the parse instead of the
    store; the store's `start` takes them. Those it did not take (a file refused, or whose
    participants turn out smaller) are ended with the block."""
    if file_bytes <= PROCESS_BYTES or getattr(_early, "pool", None) is not None:
        yield
        return
    try:
        _early.pool = Decoders()
    except OSError:
        _early.pool = _NONE
    try:
        yield
    finally:
        left, _early.pool = _early.pool, None
        if isinstance(left, Decoders):
            left.close()


def _columns(batch: bytes, shape: Any) -> LeanRows:
    """The store columns of a batch (participants' text without the list's brackets), decoded
    as the struct `shape` (the parent's first batch and every child's alike)."""
    text = b"[" + batch + b"]"
    return lean(experiment_rows(text, 0, len(text), shape, set()))


def _probe(text: bytes) -> bytes:
    try:
        return probe(memoryview(text))
    except FAILED as exc:
        raise Refused from exc


def _ended(proc: subprocess.Popen[bytes]) -> ResourceError:
    try:
        status = proc.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        status = None
    how = (
        "killed, perhaps for lack of memory"
        if status is None or status < 0
        else f"exit status {status}: is riskcov importable by {sys.executable}?"
    )
    return ResourceError(
        f"a process decoding the participants ended unexpectedly ({how}); nothing was stored"
    )


def _failed(trace: str) -> Exception:
    """The parent's error for a child's "error" reply: its exception's last line named first (the
    CLI's edge shows the first line), the traceback after it; a MemoryError is the machine's.

    >>> str(_failed("Traceback ...\\nValueError: bad\\n")).splitlines()[0]
    'a decoding process failed: ValueError: bad'
    """
    lines = trace.strip().splitlines()
    last = lines[-1] if lines else "no traceback"
    if last == "MemoryError" or last.startswith("MemoryError:"):
        return ResourceError("a process decoding the participants ran out of memory; nothing was stored")
    return RuntimeError(f"a decoding process failed: {last}\n{trace}")


def _receive(proc: subprocess.Popen[bytes], conn: Connection) -> LeanRows:
    try:
        kind, value = conn.recv()
    except (EOFError, OSError):
        raise _ended(proc) from None
    if kind == "refused":
        raise Refused
    if kind == "error":  # any exception but a refusal, with the child's traceback
        raise _failed(str(value))
    assert isinstance(value, LeanRows)
    return value


def _start() -> tuple[subprocess.Popen[bytes], Connection]:
    mine, theirs = Pipe()
    code = (
        # Ctrl-C reaches the whole process group: the parent ends the children
        "import signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
        f"sys.path[:] = {sys.path!r}; "
        f"from riskcov.formats.phq8_json.decoders import serve; serve({theirs.fileno()}, {os.getpid()})"
    )
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", code], pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL
        )
    finally:
        theirs.close()
    return proc, mine


def _die_with(parent: int) -> None:
    """Be killed when the parent dies (Linux), and end now if it already has."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(0)


def serve(fd: int, parent: int) -> NoReturn:
    """A child's loop: decode each batch received on the pipe `fd` and send its columns back,
    until end of file; then the process ends at once (os._exit: nothing is left to flush, and
    tearing the interpreter down, which the ingest waits for, is work for nothing)."""
    _die_with(parent)
    conn = Connection(fd)
    shape: Any = None
    with gc_paused():  # the decoded structs make no reference cycles
        while True:
            try:
                kind, value = conn.recv()
                text = conn.recv_bytes() if kind == "batch" else value
            except (EOFError, OSError):
                os._exit(0)  # the parent closed the pipe, or died
            if kind == "probe":  # no reply: a refused probe refuses the batches after it
                try:
                    shape = participant_type(text)
                except Exception:
                    shape = None
                continue
            try:
                if shape is None:
                    raise Refused
                reply: tuple[str, Any] = ("rows", _columns(text, shape))
            except FAILED:
                reply = ("refused", None)
            except Exception:
                reply = ("error", traceback.format_exc())
            del text
            try:
                conn.send(reply)
            except OSError:
                os._exit(0)
