"""The per-sample table format (SPEC §9) behind the `formats` interface: `stage_samples`
validates the file into temp tables; `fill` moves them into `samples` and `sample_scores`
under the experiment ids the orchestrator drew, one experiment per (method, seed, split,
domain)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from riskcov.errors import RiskcovError
from riskcov.formats import ExperimentRecord, IngestOptions, ParsedRun
from riskcov.formats.samples import SampleDefaults, StagedSamples, stage_samples

FORMAT_NAME = "per-sample-table"
SUFFIXES = (".csv", ".parquet", ".jsonl", ".ndjson")
_KEY = ("method", "seed", "split", "domain")


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
    )
    run_id = options.run_id or path.stem
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
        ),
        rows=[staged],
    )


def fill(con: duckdb.DuckDBPyConnection, experiment_ids: list[int], staged: StagedSamples) -> None:
    """Insert the staged rows under their experiments' ids (a scan per table)."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE staged_experiments (experiment_id INTEGER, method VARCHAR, "
        "seed BIGINT, split VARCHAR, domain VARCHAR)"
    )
    con.executemany(
        "INSERT INTO staged_experiments VALUES (?, ?, ?, ?, ?)",
        [
            [eid, e.method, e.seed, e.split, e.domain]
            for eid, e in zip(experiment_ids, staged.experiments, strict=True)
        ],
    )
    cluster_int = "CAST(s.cluster AS BIGINT)" if staged.numeric_clusters else "NULL"
    con.execute(
        "INSERT INTO samples SELECT x.experiment_id, s.sample_index, s.sample_id, s.cluster, "
        f"{cluster_int}, s.abstained, s.loss, s.label, s.prediction, s.prob "
        f"FROM staged_samples AS s JOIN staged_experiments AS x USING ({', '.join(_KEY)}) "
        "ORDER BY x.experiment_id, s.sample_index"
    )
    con.execute(
        "INSERT INTO sample_scores SELECT x.experiment_id, s.sample_index, sc.csf, sc.confidence "
        f"FROM staged_scores AS sc JOIN staged_samples AS s USING ({', '.join(_KEY)}, sample_id) "
        f"JOIN staged_experiments AS x USING ({', '.join(_KEY)}) "
        "ORDER BY x.experiment_id, sc.csf, s.sample_index"
    )
    for table in ("staged_experiments", "staged_scores", "staged_samples"):
        con.execute(f"DROP TABLE IF EXISTS {table}")
