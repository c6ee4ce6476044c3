"""Files riskcov reads and writes, so the file named is the file used (docs/reliability.md).

- `open_input`: an input is opened once, without following a glob or `~` (DuckDB's readers
  expand both in a path string), refused unless it is a regular file (a FIFO would block, a
  device such as /dev/zero never ends), and handed to DuckDB as the opened descriptor's path,
  so the bytes hashed and the bytes read are the same file's.
- `write_output`: a regular file is written to a temporary name beside it and renamed over
  it, never left half written; a character device (/dev/stdout, /dev/null) is written in
  place and never replaced; anything else (a FIFO, a folder) is refused.
- `stale_temps`: the temporary files `.<name>.<pid>.tmp` of processes that no longer run.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from riskcov.errors import InputError, ResourceError, UsageError
from riskcov.warehouse.read_ahead import read_hashed, taken

# errors that are the machine's, not the path's: no space, a file size limit, a quota
_FULL = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_TEMP = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.tmp$")


def kind_of(mode: int) -> str:
    """What a non-regular file is, in a few words.

    >>> kind_of(stat.S_IFIFO), kind_of(stat.S_IFCHR)
    ('a named pipe (FIFO)', 'a character device')
    """
    for test, name in (
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return name
    return "not a regular file"


@dataclass(frozen=True)
class InputFile:
    """An opened regular input file: its descriptor, size, and the path DuckDB is given."""

    path: Path
    fd: int
    size: int

    @property
    def reader_path(self) -> str:
        """A path naming exactly this opened file, free of glob and `~` characters: the
        descriptor's /proc entry where there is one (Linux), else the absolute path when it
        has no character DuckDB would expand."""
        proc = f"/proc/self/fd/{self.fd}"
        if os.path.exists(proc):
            return proc
        absolute = str(self.path.absolute())
        if re.search(r"[*?\[\]{}~]", absolute):
            raise InputError(
                f"{self.path}: the name holds a glob or ~ character, which DuckDB's readers would "
                "expand on this system; rename the file"
            )
        return absolute

    def read_hashed(self) -> tuple[bytes, str]:
        """The whole file from its start and its sha256 (read_ahead.read_hashed), or what was
        read ahead of this file as it is now (read_ahead.reading_ahead)."""
        return taken(self.fd) or read_hashed(self.fd)


@contextmanager
def open_input(path: Path) -> Iterator[InputFile]:
    """Open `path` for reading, as it is named (no glob, no `~`); InputError when it is
    missing, unreadable or not a regular file. Non-blocking open: a FIFO without a writer
    does not hang the check."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{path}: is {kind_of(info.st_mode)}; riskcov reads regular files only")
        os.set_blocking(fd, True)
        yield InputFile(path, fd, info.st_size)
    finally:
        os.close(fd)


def printable(text: str) -> str:
    """`text` with control characters shown as escapes, so a message stays one line.

    >>> print(printable("run" + chr(10) + chr(27) + "[31m"))
    run\\n\\x1b[31m
    """
    return "".join(repr(c)[1:-1] if _CONTROL.match(c) else c for c in text)


def control_character(text: str) -> bool:
    """Whether `text` holds a control character (a newline, an escape, ...)."""
    return _CONTROL.search(text) is not None


def is_full(exc: BaseException) -> bool:
    """True for the machine's "no space" kinds of failure, from the OS or from DuckDB's text.

    >>> is_full(OSError(errno.ENOSPC, "No space left on device")), is_full(OSError(2, "x"))
    (True, False)
    """
    if isinstance(exc, OSError) and exc.errno in _FULL:
        return True
    text = str(exc).lower()
    return any(s in text for s in ("no space left", "file too large", "disk quota exceeded"))


def temp_beside(target: Path) -> Path:
    """`.<name>.<pid>.tmp` in the target's folder (a rename there is atomic)."""
    return target.with_name(f".{target.name}.{os.getpid()}.tmp")


def pid_alive(pid: int) -> bool:
    """Whether a process of that id runs (a process of another user counts as running)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def make_folder(folder: Path, refusal: str) -> None:
    """Make `folder` and its parents; a folder that cannot be made (a file in the way, no write
    permission) is the flag's fault, not a bug: UsageError `refusal: <the system's reason>`.

    >>> import tempfile
    >>> base = Path(tempfile.mkdtemp()); (base / "f").write_text("")
    0
    >>> make_folder(base / "f" / "sub", "--out x: cannot make the folder")
    Traceback (most recent call last):
    riskcov.errors.UsageError: --out x: cannot make the folder: Not a directory
    >>> import shutil; shutil.rmtree(base)
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{refusal}: {exc.strerror}") from None


def stale_temps(folder: Path, name: str | None = None) -> list[Path]:
    """Temporary files (`temp_beside`) in `folder` whose process is gone, for target `name`
    or any target; sorted."""
    found = []
    with suppress(OSError):
        for entry in folder.iterdir():
            m = _TEMP.match(entry.name)
            if m and (name is None or m.group("name") == name) and not pid_alive(int(m.group("pid"))):
                found.append(entry)
    return sorted(found)


def output_kind(path: Path, what: str = "the output") -> str:
    """ "regular" for a path that is a regular file or does not exist yet, "device" for a
    character device (written in place); UsageError for anything else."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "regular"
    except OSError as exc:
        raise UsageError(f"--output {path}: cannot write {what}: {exc.strerror}") from None
    if stat.S_ISREG(mode):
        return "regular"
    if stat.S_ISCHR(mode):
        return "device"
    raise UsageError(
        f"--output {path}: cannot write {what}: it is {kind_of(mode)}; give a file name or a character device"
    )


class StagedOutput:
    """An output written in two steps: `StagedOutput(path, data)` writes a regular file's bytes
    to a temporary name beside it (flushed to disk), `finish()` renames it into place (a device
    is written then), `discard()` removes what `finish` did not take. Between the two a
    transaction commits: the file appears only once what it reports is stored."""

    def __init__(self, path: Path, data: str | bytes, what: str = "the output") -> None:
        self.path, self.what = path, what
        self.raw = data.encode("utf-8") if isinstance(data, str) else data
        self.kind = output_kind(path, what)
        self.tmp = temp_beside(path)
        if self.kind == "regular":
            self._guard(self._stage)

    def _stage(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        stage(self.tmp, self.raw)

    def finish(self) -> None:
        if self.kind == "device":
            self._guard(lambda: self.path.write_bytes(self.raw))
        else:
            self._guard(lambda: os.replace(self.tmp, self.path))

    def discard(self) -> None:
        with suppress(OSError):
            self.tmp.unlink(missing_ok=True)

    def _guard(self, step: Callable[[], object]) -> None:
        """Run a step; a failure removes the temporary file and becomes ResourceError (the disk
        is full) or UsageError (the path cannot be written)."""
        try:
            step()
        except OSError as exc:
            self.discard()
            if is_full(exc):
                raise ResourceError(
                    f"--output {self.path}: disk full ({exc.strerror}); {self.what} was not written"
                ) from None
            raise UsageError(f"--output {self.path}: cannot write {self.what}: {exc.strerror}") from None
        except BaseException:
            self.discard()
            raise


def write_output(path: Path, data: str | bytes, what: str = "the output") -> None:
    """Write `data` to `path` at once (a StagedOutput finished): a regular file is replaced
    whole or not at all, a character device written in place, anything else refused."""
    StagedOutput(path, data, what).finish()


def stage(tmp: Path, raw: bytes) -> None:
    """Write `raw` to `tmp` and flush it to disk (so a rename after a crash names whole bytes)."""
    with open(tmp, "wb") as f:
        f.write(raw)
        f.flush()
        os.fsync(f.fileno())
