"""What this process has committed, so a Ctrl-C message says what is true, and a window in
which Ctrl-C waits: COMMIT and the renames that make its files visible are not split by it.

No imports beyond the standard library: the CLI reads `STORED` when it reports an interrupt.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# "evaluation 3", "run r1", ...: what this process's commands have committed, in order
STORED: list[str] = []


def interrupted_message() -> str:
    """The one line for a Ctrl-C: what was stored before it, and that the rest was rolled back.

    >>> STORED.clear(); interrupted_message()
    'interrupted; the work in progress was rolled back'
    >>> STORED.append("evaluation 3"); interrupted_message()
    'interrupted after evaluation 3 was stored; the work in progress after it was rolled back'
    >>> STORED.clear()
    """
    if not STORED:
        return "interrupted; the work in progress was rolled back"
    done = ", ".join(STORED)
    verb = "was" if len(STORED) == 1 else "were"
    return f"interrupted after {done} {verb} stored; the work in progress after it was rolled back"


def stored_before() -> str:
    """What a failed command kept: nothing, or what it committed before the failure.

    >>> STORED.clear(); stored_before()
    'nothing of this command was stored'
    """
    if not STORED:
        return "nothing of this command was stored"
    return f"{', '.join(STORED)} stored before it; the rest was rolled back"


@contextmanager
def sigint_deferred() -> Iterator[None]:
    """Ctrl-C during the block is delivered when it ends (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, frame: Any) -> None:
        caught.append(signum)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught and callable(previous):
            previous(signal.SIGINT, None)
