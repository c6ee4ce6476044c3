"""An input read and hashed ahead on a thread (riskcov.warehouse.read_ahead): the read of the
same file takes it, a file changed since is read again (the CLI's use: tests/functional/
test_read_ahead_cli.py)."""

from __future__ import annotations

import hashlib
import os

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
