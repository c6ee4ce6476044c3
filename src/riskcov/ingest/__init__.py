"""`riskcov ingest`: run files into the warehouse, one transaction per file, deduplicated by sha256.

The orchestration only: which format reads a file, the `runs` and `experiments` rows, the
run_id conflict rules; each format (`riskcov.formats`) validates its file and fills its own tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass
from dataclasses import replace as replace_options
from pathlib import Path

import duckdb

from riskcov import __version__
from riskcov.errors import InputError
from riskcov.formats import (
    SUFFIXES,
    ExperimentRecord,
    FileProblem,
    IngestOptions,
    ParsedRun,
    format_name,
    load_format,
    prepared,
)
from riskcov.warehouse import metric_tables as materialise
from riskcov.warehouse.duckdb_helpers import one, transaction
from riskcov.warehouse.files import control_character, open_input, printable

# the tables below `experiments`, deleted with a run (every format's)
FORMAT_TABLES = ("item_signals", "items", "participants", "sample_attributes", "sample_scores", "samples")
# one input file is read whole (hashed, a run JSON parsed in memory): 16 GiB is far above any
# real run (100,000 participants: 447 MiB) and stops a sparse or endless file early
MAX_FILE_BYTES = 16 * 2**30


@dataclass(frozen=True)
class IngestResult:
    """What happened to one file: ingested, replaced, unchanged, or an error line."""

    path: Path
    status: str
    run_id: str | None = None
    message: str = ""


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files as given; folders become their files of a known format, recursively, sorted."""
    suffixes = set(SUFFIXES)
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(x for x in p.rglob("*") if x.is_file() and x.suffix.lower() in suffixes))
        else:
            out.append(p)
    return out


def _insert_experiments(con: duckdb.DuckDBPyConnection, run: ParsedRun) -> list[int]:
    ids = []
    for exp in run.experiments:
        row = one(con.execute("SELECT nextval('experiment_id_seq')"))
        assert row is not None
        ids.append(int(row[0]))
        _insert_experiment_row(con, run.run_id, ids[-1], exp)
    run.fill(con, ids)
    # stored: the parsed columns (a GiB of Python objects for a 100,000-participant run) are not
    # needed while the metric tables are computed
    run.rows.clear()
    return ids


def _insert_experiment_row(
    con: duckdb.DuckDBPyConnection, run_id: str, eid: int, exp: ExperimentRecord
) -> None:
    con.execute(
        "INSERT INTO experiments (experiment_id, run_id, experiment_index, mode, provenance, "
        "item_names, score_min, score_max, loss_kind, method, seed, split, domain) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            eid,
            run_id,
            exp.index,
            exp.mode,
            exp.provenance_json,
            exp.item_names,
            exp.score_min,
            exp.score_max,
            exp.loss_kind,
            exp.method,
            exp.seed,
            exp.split,
            exp.domain,
        ],
    )


def delete_run(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """Remove a run and everything below it (inside the caller's transaction)."""
    materialise.forget_run(con, run_id)
    for table in FORMAT_TABLES:
        con.execute(
            f"DELETE FROM {table} WHERE experiment_id IN "
            "(SELECT experiment_id FROM experiments WHERE run_id = ?)",
            [run_id],
        )
    con.execute("DELETE FROM experiments WHERE run_id = ?", [run_id])
    con.execute("DELETE FROM runs WHERE run_id = ?", [run_id])


def _store(
    con: duckdb.DuckDBPyConnection, path: Path, sha: str, run: ParsedRun, replace: bool, own_transaction: bool
) -> None:
    """Insert a run: in a transaction of its own, or inside the caller's (evaluate)."""
    with transaction(con, own=own_transaction) as tx:
        tx.stored = f"run {run.run_id}"
        if replace:
            delete_run(con, run.run_id)
        con.execute(
            "INSERT INTO runs VALUES (?, ?, ?, now()::TIMESTAMP, ?, ?, ?, ?, ?)",
            [
                run.run_id,
                str(path),
                sha,
                run.git_commit,
                run.timestamp,
                run.metadata_json,
                run.input_format,
                __version__,
            ],
        )
        materialise.refresh(con, _insert_experiments(con, run))


def store_run(
    con: duckdb.DuckDBPyConnection,
    source: Path,
    sha: str,
    run: ParsedRun,
    *,
    replace: bool,
    own_transaction: bool = True,
) -> None:
    """Insert a parsed run (a file's or in-memory data's); a failure is an InputError naming
    `source` and the run."""
    try:
        _store(con, source, sha, run, replace=replace, own_transaction=own_transaction)
    except FileProblem:
        raise
    except InputError as exc:
        raise InputError(f"{source}: run {run.run_id}: {exc}") from None
    except duckdb.ConstraintException as exc:
        raise InputError(f"{source}: run {run.run_id}: {str(exc).splitlines()[0]}") from None


def ingest_file(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    *,
    replace: bool = False,
    options: IngestOptions | None = None,
    own_transaction: bool = True,
) -> IngestResult:
    """Ingest one file; raise InputError (warehouse untouched) when it is bad."""
    options = options or IngestOptions()
    name = format_name(path)  # the format's package is imported once the file is known to be new
    if name is None:
        known = ", ".join(SUFFIXES)
        raise InputError(f"{path}: unknown file type {path.suffix or '(none)'}; riskcov reads {known}")
    # what the format prepares for a new file (PHQ-8 JSON: its decoding processes, started while
    # the file is parsed) lasts until the file is stored or refused
    with ExitStack() as prepared_for_file:
        with open_input(path) as source:
            if source.size > MAX_FILE_BYTES:
                raise InputError(
                    f"{path}: {source.size} bytes is above the {MAX_FILE_BYTES} bytes riskcov reads in "
                    "one file"
                )
            data, sha = source.read_hashed()
            same = one(con.execute("SELECT run_id FROM runs WHERE sha256 = ?", [sha]))
            if same:
                said = f"run {same[0]} already ingested (same sha256)"
                return IngestResult(path, "unchanged", same[0], said)
            fmt = load_format(name)
            prepared_for_file.enter_context(prepared(fmt, source.size))
            run = fmt.parse(con, path, data, replace_options(options, reader_path=source.reader_path))
            _refuse_control_characters(path, run)
            del data  # the file's bytes (hundreds of MiB for a large run) are not needed while storing
        old = one(con.execute("SELECT source_path FROM runs WHERE run_id = ?", [run.run_id]))
        if old and not replace:
            if run.check is not None:
                run.check()  # a problem of the file itself is named first, as when it is parsed whole
            raise InputError(
                f"{path}: run_id {run.run_id} is already ingested from {old[0]} with other content; "
                "riskcov ingest --replace swaps it"
            )
        store_run(con, path, sha, run, replace=bool(old), own_transaction=own_transaction)
    return IngestResult(
        path, "replaced" if old else "ingested", run.run_id, f"run {run.run_id}: {run.stored_summary()}"
    )


def _refuse_control_characters(path: Path, run: ParsedRun) -> None:
    """Identifiers are printed on the console and in messages: a newline or an escape sequence
    in one would split a line or recolour the terminal."""
    named = [("run_id", run.run_id)] + [
        (f"experiment {e.index} {field}", value)
        for e in run.experiments
        for field in ("mode", "method", "split")
        if isinstance(value := getattr(e, field), str)
    ]
    for field, value in named:
        if control_character(value):
            raise InputError(f"{path}: {field} {printable(value)} holds a control character; refused")


def ingest_paths(
    con: duckdb.DuckDBPyConnection,
    paths: Iterable[Path],
    *,
    replace: bool = False,
    options: IngestOptions | None = None,
    on_file: Callable[[Path], None] | None = None,
) -> list[IngestResult]:
    """Ingest every file (folders already expanded, see expand_paths); a bad file becomes an
    `error` result and the others still land."""
    results = []
    for path in paths:
        if on_file:
            on_file(path)
        try:
            results.append(ingest_file(con, path, replace=replace, options=options))
        except InputError as exc:
            results.append(IngestResult(path, "error", None, str(exc)))
    return results


__all__ = ["IngestResult", "delete_run", "expand_paths", "ingest_file", "ingest_paths", "store_run"]
