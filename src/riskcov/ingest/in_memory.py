"""Ingest in-memory per-sample data (the Python API's `data`: a DataFrame, a pyarrow Table or a
mapping of columns) as a run, with the file ingest's rules: deduplicated by the data's digest,
a run_id taken by other content refused unless replacing (docs/python.md)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from riskcov.errors import InputError
from riskcov.formats import IngestOptions
from riskcov.formats.frames import stage_data
from riskcov.formats.per_sample import parsed_run
from riskcov.formats.per_sample.read import SampleDefaults
from riskcov.formats.per_sample.store_rows import drop
from riskcov.ingest import IngestResult, store_run
from riskcov.warehouse.duckdb_helpers import one

SOURCE = Path("<data>")  # the runs.source_path of in-memory data


def ingest_data(
    con: duckdb.DuckDBPyConnection,
    data: object,
    *,
    options: IngestOptions | None = None,
    renames: dict[str, str] | None = None,
    replace: bool = False,
) -> IngestResult:
    """Ingest `data` as one run (its own transaction); raise InputError (warehouse untouched)
    when it is bad. The run_id defaults to `data-` and the digest's first 12 hex digits, the
    method of rows without a method column to `data`."""
    options = options or IngestOptions()
    defaults = SampleDefaults(
        method=options.method, seed=options.seed, split=options.split, domain=options.domain
    )
    staged, sha = stage_data(con, data, defaults, "data", renames=renames)
    same = one(con.execute("SELECT run_id FROM runs WHERE sha256 = ?", [sha]))
    if same and (options.run_id in (None, same[0])):
        drop(con, "staged_samples", "staged_scores", staged.layout.table)
        return IngestResult(SOURCE, "unchanged", same[0], f"run {same[0]} already ingested (same data)")
    run = parsed_run(staged, options.run_id or f"data-{sha[:12]}")
    old = one(con.execute("SELECT source_path FROM runs WHERE run_id = ?", [run.run_id]))
    if old and not replace:
        drop(con, "staged_samples", "staged_scores", staged.layout.table)
        raise InputError(
            f"data: run_id {run.run_id} is already ingested from {old[0]} with other content; "
            "ingest(..., replace=True) swaps it"
        )
    store_run(con, SOURCE, sha, run, replace=bool(old))
    return IngestResult(
        SOURCE, "replaced" if old else "ingested", run.run_id, f"run {run.run_id}: {run.summary}"
    )
