"""A decoding process's "error" reply (formats/phq8_json/decoders.py): a child sends it for any
exception but a refusal, with its traceback. The parent's error names the child's exception on
its first line (the line the CLI's edge shows: "internal error (RuntimeError: a decoding process
failed: ValueError: ...)", exit 70), and a child's MemoryError is the machine's (ResourceError,
exit 6 by docs/reliability.md), not reported as a riskcov bug.
"""

from __future__ import annotations

import os
from multiprocessing.connection import Pipe

import pytest

from riskcov.errors import ResourceError
from riskcov.formats.phq8_json import decoders

TRACEBACK = 'Traceback (most recent call last):\n  File "decoders.py", line 1, in serve\n{last}\n'


class _Child:
    """The child process as _receive sees it (asked only when the pipe ends)."""

    def wait(self, timeout: float | None = None) -> int:
        return 0


def _reply(last: str) -> BaseException:
    parent, child = Pipe()
    child.send(("error", TRACEBACK.format(last=last)))
    with pytest.raises(Exception) as raised:
        decoders._receive(_Child(), parent)  # type: ignore[arg-type]
    parent.close()
    child.close()
    return raised.value


def test_a_childs_memory_error_is_the_machines():
    raised = _reply("MemoryError")
    assert isinstance(raised, ResourceError)
    assert str(raised) == "a process decoding the participants ran out of memory; nothing was stored"


def test_a_childs_failure_names_its_exception_on_the_first_line():
    raised = _reply("ValueError: a column of unexpected type")
    assert str(raised).splitlines()[0] == "a decoding process failed: ValueError: a column of unexpected type"


class _Ended(Exception):
    """os._exit, as the test sees it: the code it was called with."""


def test_a_child_ends_at_once_at_end_of_file(monkeypatch):
    """At end of file on its pipe (the ingest is done with it, or died) a child ends by
    os._exit(0), without tearing the interpreter down, which the ingest would wait for."""

    def _exit(code: int) -> None:
        raise _Ended(code)

    monkeypatch.setattr(decoders, "_die_with", lambda parent: None)
    monkeypatch.setattr(decoders.os, "_exit", _exit)
    parent, child = Pipe()
    fd = os.dup(child.fileno())  # serve's own copy of the child's end
    parent.close()
    child.close()
    with pytest.raises(_Ended) as ended:
        decoders.serve(fd, 0)
    assert ended.value.args == (0,)
