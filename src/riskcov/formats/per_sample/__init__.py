"""The per-sample table format (docs/formats.md) behind the `formats` interface: `stage_samples`
validates the file into temp tables; `fill` moves them into `samples` and `sample_scores`
under the experiment ids the orchestrator drew, one experiment per (method, seed, split,
domain)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from riskcov.errors import RiskcovError
from riskcov.formats import SUFFIXES_BY_FORMAT, ExperimentRecord, IngestOptions, ParsedRun
from riskcov.formats.per_sample.read import SampleDefaults, StagedSamples, stage_samples
from riskcov.formats.per_sample.store_rows import drop, store

FORMAT_NAME = "per-sample-table"
SUFFIXES = SUFFIXES_BY_FORMAT["per_sample"]


def parse(
    con: duckdb.DuckDBPyConnection | None, path: Path, data: bytes, options: IngestOptions | None = None
) -> ParsedRun:
    """Validate a per-sample table (DuckDB reads the file itself; `data` is only hashed)."""
    if con is None:
        raise RiskcovError("internal error: per-sample tables are read through a connection")
    options = options or IngestOptions()
    staged = stage_samples(
        con,
        path,
        SampleDefaults(method=options.method, seed=options.seed, split=options.split, domain=options.domain),
        reader=options.reader_path,
    )
    return parsed_run(staged, options.run_id or path.stem)


def parsed_run(staged: StagedSamples, run_id: str) -> ParsedRun:
    """The run of staged per-sample rows (a file's, or the Python API's in-memory data)."""
    experiments = [
        ExperimentRecord(
            index=i, loss_kind="given", method=e.method, seed=e.seed, split=e.split, domain=e.domain
        )
        for i, e in enumerate(staged.experiments)
    ]
    meta = {
        "run_id": run_id,
        "format": FORMAT_NAME,
        "loss_source": staged.loss_source,
        "score_columns": list(staged.csfs),
        "columns": list(staged.columns),
        **({"attributes": list(staged.attributes)} if staged.attributes else {}),
        "rows": staged.n_rows,
    }
    n_abstained = sum(e.n_abstained for e in staged.experiments)
    return ParsedRun(
        run_id=run_id,
        git_commit=None,
        timestamp=None,
        metadata_json=json.dumps(meta),
        input_format=FORMAT_NAME,
        experiments=experiments,
        fill=lambda c, ids: fill(c, ids, staged),
        summary=(
            f"{len(experiments)} experiment(s), {staged.n_rows} samples ({n_abstained} abstained), "
            f"{len(staged.csfs)} score column(s): {', '.join(staged.csfs)}"
            + (f"; attribute(s): {', '.join(staged.attributes)}" if staged.attributes else "")
        ),
        rows=[staged],
    )


def fill(con: duckdb.DuckDBPyConnection, experiment_ids: list[int], staged: StagedSamples) -> None:
    """Insert the staged rows under their experiments' ids, in storage order (see
    `riskcov.formats.per_sample.store_rows`), and drop what staging left."""
    store(con, staged.layout, experiment_ids)
    drop(con, "staged_samples", "staged_scores", "staged_attributes", staged.layout.table)
