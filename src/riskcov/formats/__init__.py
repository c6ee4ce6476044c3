"""Input formats: each turns one kind of run file into a `ParsedRun` that fills its own tables.

A format is a module with `FORMAT_NAME`, the file suffixes it reads and
`parse(con, path, data, options) -> ParsedRun`, and optionally `prepare(file_bytes)`, a context
manager the orchestrator holds while it parses and stores a new file (`prepared`). The
orchestrator (`riskcov.ingest`) writes `runs` and `experiments` rows, then calls
`ParsedRun.fill` with the experiment ids it drew; the format writes its rows (PHQ-8:
participants, items, item_signals; per-sample: samples, sample_scores). The SQL metric
macros read every format through the scored relation.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from riskcov.errors import InputError

if TYPE_CHECKING:  # numpy only for the annotation: `riskcov runs` need not import it
    import duckdb  # nor a decoding process (phq8_json/decoders.py) DuckDB
    import numpy as np

    Columns = dict[str, np.ndarray[Any, Any]]
else:
    Columns = dict


@dataclass(frozen=True)
class IngestOptions:
    """What `riskcov ingest` passes to a format besides the file (per-sample defaults)."""

    run_id: str | None = None
    method: str | None = None
    seed: int | None = None
    split: str | None = None
    domain: str | None = None
    # how much of the current file is done (0..1) and what is being done, for a progress bar;
    # a format reports what it can (the PHQ-8 reader: parsing, validating, storing)
    progress: Callable[[float, str], None] | None = field(default=None, compare=False, repr=False)
    # the path a DuckDB reader is given: the opened input's descriptor (riskcov.warehouse.files), so the
    # file read is the file hashed; None reads `path` itself (tests, doctests)
    reader_path: str | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ExperimentRecord:
    """One `experiments` row: what every format knows of an experiment.

    `loss_kind` says which losses apply (`abs_error`: abs and abs_norm of pred - gt over the
    score range; `given`: the file's loss); `item_names`/`score_*` are None for per-sample runs.
    """

    index: int
    loss_kind: str
    mode: str | None = None
    provenance_json: str | None = None
    item_names: list[str] | None = None
    score_min: int | None = None
    score_max: int | None = None
    method: str | None = None
    seed: int | None = None
    split: str | None = None
    domain: str | None = None


@dataclass
class ParsedRun:
    """A validated run file: its `runs` row, its experiments, and how to fill its own tables."""

    run_id: str
    git_commit: str | None
    timestamp: str | None
    metadata_json: str
    input_format: str
    experiments: list[ExperimentRecord]
    fill: Callable[[duckdb.DuckDBPyConnection, list[int]], None]
    summary: str  # e.g. "1 experiment(s), 2 participants, 8 items"
    rows: list[Any] = field(default_factory=list)  # the format's own rows per experiment
    # rows checked only while `fill` stores them (a large run JSON, decoded in batches): the
    # summary once stored, and a check of them all without storing (InputError when bad)
    recount: Callable[[], str] | None = None
    check: Callable[[], None] | None = None

    def stored_summary(self) -> str:
        """The summary, after `fill` has run."""
        return self.recount() if self.recount is not None else self.summary


class FileProblem(InputError):
    """A problem of the file found by `ParsedRun.fill` (whose rows are checked as they are
    stored): its message names the file, experiment and participant already, as parse's do."""


class Format(Protocol):
    """What `riskcov.ingest` needs of a format module."""

    FORMAT_NAME: str
    SUFFIXES: tuple[str, ...]

    def parse(
        self, con: duckdb.DuckDBPyConnection, path: Path, data: bytes, options: IngestOptions
    ) -> ParsedRun: ...


def prepared(fmt: Format, file_bytes: int) -> AbstractContextManager[None]:
    """The format's `prepare(file_bytes)`, a context manager around parsing and storing one
    new file (PHQ-8 JSON starts its decoding processes there), when it has one."""
    prepare = getattr(fmt, "prepare", None)
    return prepare(file_bytes) if prepare is not None else nullcontext()


# every format's package (riskcov.formats.<name>) and the file suffixes it reads, in the order a
# folder's files are matched: named here so that a file's format is known without importing its
# package (msgspec, the per-sample readers), which `evaluate --input run.json` of a file already
# ingested never uses (docs/performance.md, start-up); each package's SUFFIXES is its entry
SUFFIXES_BY_FORMAT = {"phq8_json": (".json",), "per_sample": (".csv", ".parquet", ".jsonl", ".ndjson")}
SUFFIXES = tuple(s for suffixes in SUFFIXES_BY_FORMAT.values() for s in suffixes)


def format_name(path: Path) -> str | None:
    """The name of the format reading files with this suffix, or None; nothing imported.

    >>> format_name(Path("run.JSON")), format_name(Path("s.ndjson")), format_name(Path("notes.txt"))
    ('phq8_json', 'per_sample', None)
    """
    suffix = path.suffix.lower()
    return next((name for name, suffixes in SUFFIXES_BY_FORMAT.items() if suffix in suffixes), None)


def load_format(name: str) -> Format:
    """The format module of that name (a key of SUFFIXES_BY_FORMAT)."""
    import importlib

    return importlib.import_module(f"riskcov.formats.{name}")
