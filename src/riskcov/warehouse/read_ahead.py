"""An input file read whole and hashed: in place (`read_hashed`), or ahead on a thread while
the command does something else first (`reading_ahead`: `riskcov ingest` opens its warehouse
meanwhile), the result then taken by the read of the same file (docs/performance.md#ingest).

Reading and hashing release the GIL, so the read ahead costs the work beside it little. It is
an optimisation only: the read of the file still opens, checks and reads it as always, and
takes the bytes read ahead only when they are that file's as it is now (the same device,
inode, size, modification and status-change times, unchanged while they were read: a file
rewritten in place with its modification time set back, as `cp -p` or `rsync --inplace` do,
has a new status-change time); anything that goes wrong ahead is left to that read, which
reports it as before. What the command does not take (an interrupt, a failure before the
read) stops the read ahead at its next chunk: the command ends without reading the rest.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_CHUNK_BYTES = 16 * 2**20  # an input read (and hashed) at a time
# files read ahead: from this size, a read takes long enough to be worth a thread
AHEAD_BYTES = 32 * 2**20
_Key = tuple[int, int, int, int, int]


def read_hashed(fd: int, stop: threading.Event | None = None) -> tuple[bytes, str]:
    """The whole file of descriptor `fd` from its start and its sha256: each chunk is hashed on
    a thread while the next is read (both release the GIL), so a large file's hash costs little
    beyond its reading. `stop`, once set, ends the read at the next chunk (Stopped)."""
    from concurrent.futures import Future, ThreadPoolExecutor  # here, not in every command's start

    digest, chunks, offset = hashlib.sha256(), list[bytes](), 0
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="riskcov-sha256") as pool:
        hashed: Future[None] | None = None
        while chunk := os.pread(fd, _CHUNK_BYTES, offset):
            if stop is not None and stop.is_set():
                raise Stopped
            if hashed is not None:
                hashed.result()
            hashed = pool.submit(digest.update, chunk)
            chunks.append(chunk)
            offset += len(chunk)
        if hashed is not None:
            hashed.result()
    return b"".join(chunks), digest.hexdigest()


class Stopped(Exception):
    """read_hashed was stopped before the end of the file."""


def _key(info: os.stat_result) -> _Key:
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


class _Ahead:
    """One file read on a thread; `result` is None until it is done, or when it failed."""

    def __init__(self, fd: int, key: _Key) -> None:
        self.key = key
        self.result: tuple[bytes, str] | None = None
        self.stop = threading.Event()  # set when nothing will take the result
        self.thread = threading.Thread(target=self._run, args=(fd,), name="riskcov-read-ahead", daemon=True)
        self.thread.start()

    def _run(self, fd: int) -> None:
        try:
            data, sha = read_hashed(fd, self.stop)
            if _key(os.fstat(fd)) == self.key and len(data) == self.key[2]:  # unchanged meanwhile
                self.result = (data, sha)
        except Exception:  # the read of the file itself reports it
            return
        finally:
            os.close(fd)


_ahead: dict[_Key, _Ahead] = {}
_lock = threading.Lock()


@contextmanager
def reading_ahead(path: Path | None, most_bytes: int) -> Iterator[None]:
    """For the block: read and hash `path` on a thread when it is a regular file of at least
    AHEAD_BYTES and at most `most_bytes` (what the reader refuses unread stays unread); `taken`
    hands the result to the read of that file inside the block. What the block did not take is
    dropped at its end, once the thread has ended."""
    ahead = _start(path, most_bytes) if path is not None else None
    try:
        yield
    finally:
        if ahead is not None:
            with _lock:
                _ahead.pop(ahead.key, None)
            ahead.stop.set()  # not taken (or taken already): the rest of the file is not read
            ahead.thread.join()
            ahead.result = None


def taken(fd: int) -> tuple[bytes, str] | None:
    """The bytes and sha256 read ahead for the file of descriptor `fd` as it is now, else None."""
    if not _ahead:
        return None
    with _lock:
        ahead = _ahead.pop(_key(os.fstat(fd)), None)
    if ahead is None:
        return None
    ahead.thread.join()
    result, ahead.result = ahead.result, None
    return result


def _start(path: Path, most_bytes: int) -> _Ahead | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not AHEAD_BYTES <= info.st_size <= most_bytes:
            os.close(fd)
            return None
        os.set_blocking(fd, True)
        ahead = _Ahead(fd, _key(info))
    except Exception:
        os.close(fd)
        raise
    with _lock:
        _ahead[ahead.key] = ahead
    return ahead
