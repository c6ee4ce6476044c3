"""`riskcov evaluate`: inputs -> scored units -> SQL metrics per replicate -> artifact + stored rows.

`evaluate_and_store` is the whole command as one transaction (inputs ingested on the fly, the
stored rows and the artifact land together or not at all); `run` computes without storing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from riskcov.bootstrap import Draws, draw_chunks, memory
from riskcov.errors import InputError, UsageError
from riskcov.evaluation import assembly, groups
from riskcov.evaluation.callers_state import drop_new_temps, insertion_order_kept, temps
from riskcov.evaluation.options import Options
from riskcov.ingest.inputs import Input, analysis_set, resolve
from riskcov.metrics import balanced, cells, chunk_plan, chunks, cost_curves, engine, stream_plan
from riskcov.report import artifact, store
from riskcov.scoring.choose import choose, choose_samples
from riskcov.scoring.scored import Series, build_scored
from riskcov.warehouse.connection import quiet
from riskcov.warehouse.duckdb_helpers import one, transaction

__all__ = ["Evaluation", "Options", "evaluate_and_store", "run"]


@dataclass
class Evaluation:
    """What `run` produced: the artifact (docs/formats.md) and the CSFs skipped under `all`."""

    artifact: dict[str, Any]
    skipped: dict[str, str] = field(default_factory=dict)
    path: Path | None = None
    evaluation_id: int | None = None


def _csfs(
    opts: Options,
    inputs: list[Input],
    problems: dict[tuple[int, str], str],
    series: list[Series],
    skip_unsupported: bool,
) -> tuple[list[Series], dict[str, str]]:
    skipped: dict[str, str] = {}
    for c in dict.fromkeys(s.csf for s in series):
        for input_no, inp in enumerate(inputs):
            problem = problems.get((input_no, c.name))
            if problem is None:
                continue
            where = f"run {inp.run_id}, {inp.describe()}, {problem}"
            if not skip_unsupported:
                raise InputError(f"confidence {c.name} cannot be computed: {where}")
            skipped.setdefault(c.name, where)
    kept = [s for s in series if s.csf.name not in skipped]
    if not kept:
        raise InputError(
            "no confidence function can be computed for these inputs: "
            + "; ".join(f"{k}: {v}" for k, v in skipped.items())
        )
    return kept, skipped


def _loss(con: duckdb.DuckDBPyConnection, opts: Options, inputs: list[Input]) -> dict[str, Any]:
    """The artifact's loss block, from the experiments' own losses (v_experiment_losses)."""
    entries = []
    for inp in inputs:
        rows = con.execute(
            "SELECT loss, is_default, definition, loss_scale FROM v_experiment_losses "
            "WHERE experiment_id = ? ORDER BY loss",
            [inp.experiment_id],
        ).fetchall()
        chosen = [r for r in rows if (r[0] == opts.loss if opts.loss else r[1])]
        if not chosen:
            kind = "per-sample runs" if inp.per_sample else "PHQ-8 runs"
            raise UsageError(
                f"--loss {opts.loss} does not apply to {kind} ({inp.label}); choose "
                + " or ".join(r[0] for r in rows)
            )
        name, _, definition, scale = chosen[0]
        entries.append({"name": name, "definition": definition, "raw_multiplier": int(scale)})
    if any(e != entries[0] for e in entries):
        raise UsageError(
            "the two inputs define their loss differently: " + " vs ".join(e["definition"] for e in entries)
        )
    return entries[0]


def run(
    con: duckdb.DuckDBPyConnection,
    opts: Options,
    progress: Callable[[int, int], None] | None = None,
    after_chunk: Callable[[duckdb.DuckDBPyConnection, list[Series]], None] | None = None,
    inputs: list[Input] | None = None,
) -> Evaluation:
    """Evaluate; nothing is written to the warehouse but ingested inputs. `after_chunk` reads
    each replicate chunk's working points (TEMP TABLE eval_points) before they are dropped;
    `inputs`: opts.inputs already resolved by the caller (evaluate_and_store)."""
    opts.check()
    if _read_by_spark(opts):  # a table Spark reads where it lies: nothing ingested
        from riskcov.evaluation import spark_input

        return Evaluation(spark_input.evaluate(con, opts))
    if inputs is None:
        inputs = resolve(con, opts.inputs, opts.criteria)
    analysis = analysis_set(inputs, opts.intersection_only)
    groups.check(con, opts.group, inputs, opts.estimator)
    loss = _loss(con, opts, inputs)
    if inputs[0].per_sample:
        columns = [assembly.sample_csfs(con, i) for i in inputs]
        choice = choose_samples(con, opts.confidence, opts.calibration, columns)
    else:
        choice = choose(con, opts.confidence, opts.calibration)
    chosen, skip_unsupported = choice.csfs, choice.skip_unsupported
    if choice.user_sql:  # the inputs are read: nothing after this needs DuckDB's file access
        from riskcov.scoring.user_csf import deny_external_access

        deny_external_access(con)
    try:
        series, problems = build_scored(
            con, inputs, chosen, analysis.participants, loss["name"], opts.estimator
        )
    except duckdb.Error as exc:
        if not choice.user_sql and choice.calibration is None:
            raise
        # e.g. ln(0) in a user's expression, or a calibrator feature that is not a number
        why = str(exc).splitlines()[0].removeprefix("Invalid Input Error: ")
        raise InputError(f"--confidence {opts.confidence} cannot be computed: {why}") from exc
    kept, skipped = _csfs(opts, inputs, problems, series, skip_unsupported)
    skipped = {**choice.skipped, **skipped}
    engine.drop_series(con, kept)
    with_balanced = balanced.prepare(con, inputs, kept, opts.estimator)
    b = max(opts.bootstrap_resamples, 0)
    memory.check(b, len(kept), len(opts.coverage_grid), len(opts.alpha_grid))  # before any replicate
    if opts.engine == "spark":
        if not inputs[0].per_sample:
            raise UsageError("--engine spark evaluates per-sample runs; PHQ-8 runs take the DuckDB engine")
        from riskcov.evaluation.spark_engine import compute_all

        res = compute_all(con, opts, kept, analysis.participants, b, with_balanced)
    else:
        res = _compute_all(con, opts, kept, analysis.participants, b, progress, after_chunk, with_balanced)
    totals = _totals(con, kept)
    population: dict[str, Any] = {**analysis.counts, "items_total": totals[0][0]}
    if len(inputs) == 1:  # paired, each input's Cmax is in its own metrics
        population["items_predicted"] = totals[0][1]
    entries = [assembly.input_entry(con, i) for i in inputs]
    art = assembly.artifact_of(opts, res, kept, entries, population, loss, skipped, analysis.comparison)
    if opts.group is not None:  # last: it replaces eval_scored
        art["options"]["group"] = opts.group
        art["groups"] = groups.evaluate(
            con,
            opts.group,
            inputs[0],
            kept,
            art["confidence_variants"],
            analysis.participants,
            b,
            opts.seed,
            opts.alpha_grid,
        )
    if choice.calibration is not None:  # which calibrator made the calibrated variants
        art["calibrator"] = choice.calibration
        art["options"]["calibration"] = opts.calibration
    return Evaluation(art, skipped)


def _read_by_spark(opts: Options) -> bool:
    """spark_input.read_by_spark, imported only for --engine spark: it loads sqlglot (the
    portable queries), slow to import and of no use to a DuckDB evaluation."""
    if opts.engine != "spark":
        return False
    from riskcov.evaluation import spark_input

    return spark_input.read_by_spark(opts)


def _totals(con: duckdb.DuckDBPyConnection, kept: list[Series]) -> list[tuple[int, int]]:
    """(N, K) of replicate 0 per input, from the SQL totals (rc_totals) of its first series."""
    out = []
    for input_no in sorted({s.input_no for s in kept}):
        sid = next(s.computed for s in kept if s.input_no == input_no)
        row = one(con.execute("SELECT n_total, k_total FROM eval_totals0 WHERE series = ?", [sid]))
        out.append((int(row[0]), int(row[1])) if row else (0, 0))
    return out


def _compute_all(
    con: duckdb.DuckDBPyConnection,
    opts: Options,
    series: list[Series],
    participants: list[int],
    b: int,
    progress: Callable[[int, int], None] | None,
    after_chunk: Callable[[duckdb.DuckDBPyConnection, list[Series]], None] | None = None,
    with_balanced: bool = False,
) -> engine.Results:
    """Metrics for replicate 0..B, replicate chunks sized to bound memory, on several
    connections at once when they are worth it (metrics/chunks.py)."""
    # read once for the plan and the pool: nothing before the chunks changes eval_cells or threads
    shape = chunk_plan.chunk_shape(con)
    chunk, workers, lead = chunk_plan.plan_chunks(con, b, shape)
    chunk, workers = opts.chunk_replicates or chunk, opts.workers or workers
    stream = stream_plan.plan(con, participants)  # None: the chunked path's sort per chunk
    # few clusters: cumulative cells, or None (docs/performance.md, the shape rule)
    cumulative = cells.plan(con, participants, allowed=stream is None)
    if opts.block_pool:  # blocks reused, chunk to chunk
        chunks.keep_blocks(con, chunk_plan.block_pool(shape, chunk, workers))
    total = engine.Results(b + 1)
    lock = threading.Lock()  # chunks finish on several threads
    done = 0

    def work(cur: duckdb.DuckDBPyConnection, draws: Draws) -> None:
        nonlocal done
        point = draws.first == 0 and draws.counts.size > 0  # the chunk holds replicate 0
        # the sample rows, made once for eval_samples and the cumulative cells' weights; not held
        # through the chunk when only eval_samples reads them (a large run's rows are large)
        rows = draws.rows() if stream is None or with_balanced or point else None
        if rows is not None and (cumulative is None or with_balanced or point):
            engine.load_samples(cur, *rows)
        else:  # the sort-once and cells paths weight the draws themselves: no reader may see a stale table
            cur.execute("DROP TABLE IF EXISTS eval_samples")
        if cumulative is None:
            rows = None
        engine.compute(
            cur,
            series,
            total,
            area_c=opts.area_coverage,
            grid=opts.coverage_grid,
            alphas=opts.alpha_grid,
            estimator=opts.estimator,
            curve_points=opts.curve_points,
            stream=None if stream is None else (stream, draws),
            cumulative=None if cumulative is None else (cumulative, rows or draws.rows()),
        )
        if with_balanced:  # over the chunk's working points, before they are dropped
            balanced.compute(cur, series, total)
        if opts.estimator == "plateau-trapezoid":  # every replicate: CIs (docs/metrics-extended.md)
            cost_curves.compute(cur, series, total, opts.costs)
        with lock:
            if after_chunk:
                after_chunk(cur, series)
            if progress and draws.counts.size:
                done += len(draws.counts) - (draws.first == 0)  # the bootstrap replicates of the chunk
                progress(done, b)
        # The next chunk's CREATE OR REPLACE would build its points while this chunk's are still
        # held, so each connection would keep two chunks of points at its peak.
        cur.execute("DROP TABLE eval_points")

    sizes = chunk_plan.chunk_sizes(b, chunk, workers, lead)
    chunks.run(con, draw_chunks(participants, b, opts.seed, sizes), work, workers)
    engine.copy_aliases(series, total)
    return total


def evaluate_and_store(
    con: duckdb.DuckDBPyConnection,
    opts: Options,
    output: Path | None,
    warehouse: Path | None,
    progress: Callable[[int, int], None] | None = None,
) -> Evaluation:
    """Evaluate and store the rows in one transaction; the artifact, staged beside its path
    before COMMIT, is renamed into place right after it (no artifact without its stored
    evaluation; a killed run's staged artifact is recovered by the next one)."""
    opts.check()
    store.recover_artifacts(con, warehouse, output)
    restore = opts.restore_connection
    with insertion_order_kept(con) if restore else nullcontext(), transaction(con) as tx:
        temps_before = temps(con) if restore else set()
        # a new file input is ingested, uncommitted (not one Spark reads where it lies)
        inputs = None if _read_by_spark(opts) else resolve(con, opts.inputs, opts.criteria)
        # Inside an open transaction DuckDB keeps every replaced TEMP table until COMMIT, so each
        # replicate chunk's points would stay in memory (gigabytes for a large paired `all`
        # run). With every input committed, the replicates run on a connection of their
        # own, outside it; only the stored rows are written here. An input ingested just now is
        # seen by this transaction alone, so then the replicates run in it.
        fresh = any(i.ingested for i in inputs or ())
        worker = con if fresh else quiet(con.cursor())
        try:
            result = run(worker, opts, progress, inputs=inputs)
        finally:
            if worker is not con:
                worker.close()
        result.evaluation_id = store.next_id(con)
        result.path = output or store.default_artifact_path(warehouse, result.evaluation_id)
        store.save(con, result.evaluation_id, result.artifact, str(result.path))
        if restore:
            drop_new_temps(con, temps_before)  # the replicates ran on `con` itself when `fresh`
        tx.stored = f"evaluation {result.evaluation_id}"
        if str(result.path) != "-":  # `--output -`: the caller prints it on stdout
            artifact.write_on_commit(tx, result.artifact, result.path)
    return result
