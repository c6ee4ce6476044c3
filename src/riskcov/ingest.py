"""`riskcov ingest`: run files into the warehouse, one transaction per file, deduplicated by sha256."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from riskcov import __version__
from riskcov.db import one
from riskcov.errors import InputError
from riskcov.formats import ParsedExperiment, ParsedRun, get_parser
from riskcov.formats.run_json import FORMAT_NAME, NULL_MASKED, SIGNALS

_SIGNAL_COLUMNS = ", ".join(
    f"CASE WHEN {k}__null THEN NULL ELSE {k} END" if k in NULL_MASKED else k for k in SIGNALS
)


@dataclass(frozen=True)
class IngestResult:
    """What happened to one file: ingested, replaced, unchanged, or an error line."""

    path: Path
    status: str
    run_id: str | None = None
    message: str = ""


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files as given; folders become their *.json files, recursively, sorted."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(x for x in p.rglob("*.json") if x.is_file()))
        else:
            out.append(p)
    return out


def _insert_experiment(con: duckdb.DuckDBPyConnection, run_id: str, exp: ParsedExperiment) -> None:
    row = one(con.execute("SELECT nextval('experiment_id_seq')"))
    assert row is not None
    eid = int(row[0])
    con.execute(
        "INSERT INTO experiments VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [eid, run_id, exp.index, exp.mode, exp.provenance_json, exp.item_names,
         exp.score_min, exp.score_max],
    )
    con.register("_p", exp.participants)
    con.execute(
        "INSERT INTO participants SELECT ?, participant_id, success, error, has_signals FROM _p",
        [eid],
    )
    con.register("_i", exp.items)
    con.execute(
        "INSERT INTO items SELECT ?, participant_id, item_index, item_name, "
        "CASE WHEN pred_null THEN NULL ELSE pred END, gt FROM _i",
        [eid],
    )
    con.register("_s", exp.signals)
    con.execute(
        "INSERT INTO item_signals SELECT ?, participant_id, item_index, signal_keys, "
        f"{_SIGNAL_COLUMNS}, extra_signals FROM _s",
        [eid],
    )
    for name in ("_p", "_i", "_s"):
        con.unregister(name)
    # one row per item of every successful participant, none for failed ones
    bad = one(con.execute(
        """
        SELECT p.participant_id, count(i.item_index) AS n
        FROM participants p LEFT JOIN items i USING (experiment_id, participant_id)
        WHERE p.experiment_id = ?
        GROUP BY p.participant_id, p.success
        HAVING n <> CASE WHEN p.success THEN ? ELSE 0 END
        ORDER BY p.participant_id LIMIT 1
        """,
        [eid, len(exp.item_names)],
    ))
    if bad:
        raise InputError(f"participant {bad[0]}: {bad[1]} items stored, expected "
                         f"{len(exp.item_names)}")


def delete_run(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """Remove a run and everything below it (inside the caller's transaction)."""
    for table in ("item_signals", "items", "participants"):
        con.execute(
            f"DELETE FROM {table} WHERE experiment_id IN "
            "(SELECT experiment_id FROM experiments WHERE run_id = ?)",
            [run_id],
        )
    con.execute("DELETE FROM experiments WHERE run_id = ?", [run_id])
    con.execute("DELETE FROM runs WHERE run_id = ?", [run_id])


def _store(con: duckdb.DuckDBPyConnection, path: Path, sha: str, run: ParsedRun,
           replace: bool, own_transaction: bool) -> None:
    """Insert a run: in a transaction of its own, or inside the caller's (evaluate)."""
    if own_transaction:
        con.execute("BEGIN TRANSACTION")
    try:
        if replace:
            delete_run(con, run.run_id)
        con.execute(
            "INSERT INTO runs VALUES (?, ?, ?, now()::TIMESTAMP, ?, ?, ?, ?, ?)",
            [run.run_id, str(path), sha, run.git_commit, run.timestamp, run.metadata_json,
             run.input_format, __version__],
        )
        for exp in run.experiments:
            _insert_experiment(con, run.run_id, exp)
        if own_transaction:
            con.execute("COMMIT")
    except BaseException:
        if own_transaction:
            con.execute("ROLLBACK")
        raise


def ingest_file(con: duckdb.DuckDBPyConnection, path: Path, *, replace: bool = False,
                input_format: str = FORMAT_NAME, own_transaction: bool = True) -> IngestResult:
    """Ingest one file; raise InputError (warehouse untouched) when it is bad."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    sha = hashlib.sha256(data).hexdigest()
    same = one(con.execute("SELECT run_id FROM runs WHERE sha256 = ?", [sha]))
    if same:
        return IngestResult(path, "unchanged", same[0], f"run {same[0]} already ingested (same sha256)")
    run = get_parser(input_format)(path, data)
    old = one(con.execute("SELECT source_path FROM runs WHERE run_id = ?", [run.run_id]))
    if old and not replace:
        raise InputError(
            f"{path}: run_id {run.run_id} is already ingested from {old[0]} with other content; "
            "riskcov ingest --replace swaps it"
        )
    try:
        _store(con, path, sha, run, replace=bool(old), own_transaction=own_transaction)
    except InputError as exc:
        raise InputError(f"{path}: run {run.run_id}: {exc}") from None
    except duckdb.ConstraintException as exc:
        raise InputError(f"{path}: run {run.run_id}: {str(exc).splitlines()[0]}") from None
    n_part = sum(len(e.participants["participant_id"]) for e in run.experiments)
    n_items = sum(len(e.items["participant_id"]) for e in run.experiments)
    detail = (f"run {run.run_id}: {len(run.experiments)} experiment(s), {n_part} participants, "
              f"{n_items} items")
    return IngestResult(path, "replaced" if old else "ingested", run.run_id, detail)


def ingest_paths(
    con: duckdb.DuckDBPyConnection,
    paths: Iterable[Path],
    *,
    replace: bool = False,
    on_file: Callable[[Path], None] | None = None,
) -> list[IngestResult]:
    """Ingest every file (folders already expanded, see expand_paths); a bad file becomes an
    `error` result and the others still land."""
    results = []
    for path in paths:
        if on_file:
            on_file(path)
        try:
            results.append(ingest_file(con, path, replace=replace))
        except InputError as exc:
            results.append(IngestResult(path, "error", None, str(exc)))
    return results
