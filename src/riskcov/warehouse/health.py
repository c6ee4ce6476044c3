"""`riskcov doctor`: the warehouse file's size beside what it holds, its schema and what a
killed command may have left beside it (docs/reliability.md#the-files-size).

A killed writer (an ingest stopped by SIGKILL mid-file) leaves the blocks it had written in
the file: nothing of them is stored, but the file keeps their size. DuckDB gives the space at
the end of the file back when it next checkpoints a change (every riskcov command that stores
something does, on closing the warehouse); `reclaim` is such a change on its own.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from riskcov.errors import LockedError
from riskcov.warehouse.connection import connect, set_meta
from riskcov.warehouse.duckdb_helpers import one, transaction
from riskcov.warehouse.files import stale_temps
from riskcov.warehouse.migrations import load_migrations, status

# DuckDB's file starts with its main header and two database headers of 4 KiB each; the
# blocks follow
HEADER_BYTES = 3 * 4096
# free space worth a sentence: at least this much, and more than the content itself
LARGE_FREE_BYTES = 8 << 20
_BLOCKS = "block_size, total_blocks, used_blocks, free_blocks"


@dataclass(frozen=True)
class Health:
    """What `riskcov doctor` reports; the DuckDB figures are None while a writer holds the file."""

    path: str
    file_bytes: int
    wal_bytes: int
    block_size: int | None = None
    total_blocks: int | None = None
    used_blocks: int | None = None
    free_blocks: int | None = None
    migrations_applied: list[str] = field(default_factory=list)
    migrations_pending: list[str] = field(default_factory=list)
    runs: int | None = None
    experiments: int | None = None
    stale_temp_files: list[str] = field(default_factory=list)
    locked_by: str | None = None

    @property
    def content_bytes(self) -> int | None:
        """The headers and the blocks in use: what the file would be without free space."""
        if self.used_blocks is None or self.block_size is None:
            return None
        return HEADER_BYTES + self.used_blocks * self.block_size

    @property
    def unused_bytes(self) -> int | None:
        """The file's bytes that hold nothing: free blocks, and blocks past the last one
        DuckDB counts (a killed writer's)."""
        content = self.content_bytes
        return None if content is None else max(self.file_bytes - content, 0)

    @property
    def large_free(self) -> bool:
        unused, content = self.unused_bytes, self.content_bytes
        return unused is not None and content is not None and unused >= max(LARGE_FREE_BYTES, content)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "content_bytes": self.content_bytes, "unused_bytes": self.unused_bytes}


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int | None:
    present = one(
        con.execute(
            "SELECT count(*) FROM duckdb_tables() "
            "WHERE table_name = ? AND schema_name = 'main' AND NOT temporary",
            [table],
        )
    )
    if not present or not present[0]:
        return None
    row = one(con.execute(f"SELECT count(*) FROM {table}"))  # a fixed table name
    return int(row[0]) if row else 0


def _wal_bytes(path: Path) -> int:
    try:
        return os.stat(f"{path}.wal").st_size
    except FileNotFoundError:
        return 0


def examine(path: Path) -> Health:
    """The figures of the warehouse at `path` (an existing file), opened read-only."""
    temps = [str(p) for p in stale_temps(path.parent)]
    try:
        con = connect(path, read_only=True)
    except LockedError as exc:
        wal = _wal_bytes(path)
        return Health(str(path), path.stat().st_size, wal, locked_by=str(exc), stale_temp_files=temps)
    try:
        size = one(con.execute(f"SELECT {_BLOCKS} FROM pragma_database_size()"))
        assert size is not None
        states = status(con, load_migrations())
        names = [(f"{s.migration.version:04d}_{s.migration.name}", s.applied_at) for s in states]
        return Health(
            path=str(path),
            # after the connection opened: a read-only open replays the WAL in memory only
            file_bytes=path.stat().st_size,
            wal_bytes=_wal_bytes(path),
            block_size=int(size[0]),
            total_blocks=int(size[1]),
            used_blocks=int(size[2]),
            free_blocks=int(size[3]),
            migrations_applied=[name for name, applied in names if applied],
            migrations_pending=[name for name, applied in names if not applied],
            runs=_count(con, "runs"),
            experiments=_count(con, "experiments"),
            stale_temp_files=temps,
        )
    finally:
        con.close()


def reclaim(con: duckdb.DuckDBPyConnection) -> None:
    """Give the free space at the end of the file back: a change (the time of this reclaim in
    `warehouse_meta`) committed, then checkpointed (a checkpoint with nothing to write
    leaves the file as it is)."""
    with transaction(con):
        set_meta(con, "reclaimed_at", str(one(con.execute("SELECT now()::TIMESTAMP"))[0]))  # type: ignore[index]
    con.execute("CHECKPOINT")


def mib(n: int) -> str:
    """Bytes in MiB with one decimal.

    >>> mib(3 << 20), mib(1536 * 1024)
    ('3.0 MiB', '1.5 MiB')
    """
    return f"{n / (1 << 20):.1f} MiB"


def describe(h: Health) -> list[str]:
    """The console report, one fact a line."""
    lines = [f"warehouse        {h.path}", f"file size        {h.file_bytes} bytes ({mib(h.file_bytes)})"]
    lines.append(f"WAL              {h.wal_bytes} bytes")
    if h.locked_by is not None:
        return [*lines, f"locked           {h.locked_by}", *_temps(h)]
    lines += [
        f"blocks           {h.total_blocks} of {h.block_size} bytes: "
        f"{h.used_blocks} used, {h.free_blocks} free",
        f"content          {h.content_bytes} bytes ({mib(h.content_bytes or 0)})",
        f"unused           {h.unused_bytes} bytes ({mib(h.unused_bytes or 0)})",
        f"migrations       {len(h.migrations_applied)} applied"
        + (f" (last {h.migrations_applied[-1]})" if h.migrations_applied else "")
        + (f", {len(h.migrations_pending)} pending" if h.migrations_pending else ""),
        f"runs             {h.runs if h.runs is not None else 0}",
        f"experiments      {h.experiments if h.experiments is not None else 0}",
        *_temps(h),
    ]
    if h.large_free:
        lines.append(
            f"{mib(h.unused_bytes or 0)} free inside the file; the next writing command, or "
            "`riskcov doctor --reclaim`, gives it back"
        )
    return lines


def _temps(h: Health) -> list[str]:
    if not h.stale_temp_files:
        return ["stale temp files none"]
    return [f"stale temp file  {t} (of a process that no longer runs)" for t in h.stale_temp_files]
