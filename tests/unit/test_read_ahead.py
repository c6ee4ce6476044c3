"""An input read and hashed ahead on a thread (riskcov.warehouse.read_ahead): the read of the
same file takes it, a file changed since is read again (the CLI's use: tests/functional/
test_read_ahead_cli.py)."""

from __future__ import annotations

import hashlib
import os
import threading
import time

import pytest

from riskcov.warehouse import files, read_ahead
from riskcov.warehouse.files import open_input


def _refuse_in_place(*_: object) -> tuple[bytes, str]:
    raise AssertionError("read in place, not ahead")


def test_the_read_takes_what_was_read_ahead(tmp_path, monkeypatch):
    path = tmp_path / "big.json"
    path.write_bytes(os.urandom(3 * 2**20 + 5))
    monkeypatch.setattr(read_ahead, "AHEAD_BYTES", 2**20)
    with read_ahead.reading_ahead(path, 2**30):
        monkeypatch.setattr(files, "read_hashed", _refuse_in_place)
        with open_input(path) as source:
            data, sha = source.read_hashed()
        assert read_ahead._ahead == {}  # taken
    assert data == path.read_bytes()
    assert sha == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("change", ["append", "rewrite"])
def test_a_file_changed_after_the_read_ahead_is_read_again(tmp_path, monkeypatch, change):
    path = tmp_path / "big.json"
    path.write_bytes(b"a" * (2**20 + 1))
    monkeypatch.setattr(read_ahead, "AHEAD_BYTES", 2**20)
    with read_ahead.reading_ahead(path, 2**30):
        next(iter(read_ahead._ahead.values())).thread.join()  # read ahead before the change
        if change == "append":
            with path.open("ab") as fh:
                fh.write(b"b")
        else:  # same size, another file (inode)
            other = tmp_path / "other.json"
            other.write_bytes(b"c" * (2**20 + 1))
            other.replace(path)
        with open_input(path) as source:
            data, sha = source.read_hashed()
    assert data == path.read_bytes()
    assert sha == hashlib.sha256(path.read_bytes()).hexdigest()
    assert read_ahead._ahead == {}


def test_small_files_files_above_the_cap_and_non_files_are_not_read_ahead(tmp_path):
    small, large = tmp_path / "small.json", tmp_path / "large.json"
    small.write_bytes(b"{}")
    with large.open("wb") as fh:  # sparse: above the cap (riskcov.ingest.MAX_FILE_BYTES) unread
        fh.truncate(2**30 + 1)
    for path in (small, large, tmp_path, tmp_path / "missing.json"):
        with read_ahead.reading_ahead(path, 2**30):
            assert read_ahead._ahead == {}


def test_what_is_not_taken_is_dropped(tmp_path, monkeypatch):
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * (2**20))
    monkeypatch.setattr(read_ahead, "AHEAD_BYTES", 2**20)
    with read_ahead.reading_ahead(path, 2**30):
        assert len(read_ahead._ahead) == 1
    assert read_ahead._ahead == {}


def test_a_file_rewritten_in_place_with_its_mtime_set_back_is_read_again(tmp_path, monkeypatch):
    """Same device, inode, size and mtime (`cp -p` or `rsync --inplace` over it): only the
    status-change time tells the bytes read ahead are no longer the file's."""
    path = tmp_path / "big.json"
    path.write_bytes(b"a" * (2**20 + 1))
    before = os.stat(path)
    monkeypatch.setattr(read_ahead, "AHEAD_BYTES", 2**20)
    with read_ahead.reading_ahead(path, 2**30):
        next(iter(read_ahead._ahead.values())).thread.join()  # read ahead before the change
        with path.open("r+b") as fh:
            fh.write(b"b" * (2**20 + 1))
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        with open_input(path) as source:
            data, sha = source.read_hashed()
    assert os.stat(path).st_mtime_ns == before.st_mtime_ns
    assert data == b"b" * (2**20 + 1)
    assert sha == hashlib.sha256(data).hexdigest()


def test_an_interrupt_stops_the_read_ahead_at_its_next_chunk(tmp_path, monkeypatch):
    """A Ctrl-C while the first file is read ahead ends the command without reading the rest of
    the file (a 16 GiB input would otherwise be read and hashed whole first)."""
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 2**20)
    monkeypatch.setattr(read_ahead, "AHEAD_BYTES", 2**20)
    monkeypatch.setattr(read_ahead, "_CHUNK_BYTES", 2**10)  # 1,024 chunks
    offsets: list[int] = []
    first, interrupted = threading.Event(), threading.Event()
    pread = os.pread

    def slow(fd: int, n: int, offset: int) -> bytes:
        offsets.append(offset)
        first.set()
        if offset:  # the second chunk waits for the interrupt, however loaded the machine
            interrupted.wait(10)
        time.sleep(0.005)  # the whole file: ~5 s
        return pread(fd, n, offset)

    monkeypatch.setattr(read_ahead.os, "pread", slow)
    with pytest.raises(KeyboardInterrupt), read_ahead.reading_ahead(path, 2**30):
        assert first.wait(10)
        interrupted.set()
        raise KeyboardInterrupt
    assert len(offsets) < 100  # stopped within a chunk or two of the interrupt
    assert read_ahead._ahead == {}
