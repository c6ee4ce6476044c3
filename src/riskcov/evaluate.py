"""`riskcov evaluate`: inputs -> scored items -> SQL metrics per replicate -> artifact + stored rows."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import duckdb

from riskcov import __version__, artifact, csf, engine
from riskcov.bootstrap import sample_chunks
from riskcov.db import one
from riskcov.errors import InputError, UsageError
from riskcov.inputs import Input, population, resolve

DEFAULT_GRID = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
DEFAULT_ALPHAS = [0.01, 0.02, 0.05, 0.1, 0.15, 0.2]
MAX_RESAMPLES = 10_000_000


@dataclass
class Options:
    """Everything `evaluate` takes besides the warehouse."""

    inputs: list[str]
    modes: list[str] = field(default_factory=list)
    loss: str = "abs_norm"
    confidence: str = "default"
    coverage_grid: list[float] = field(default_factory=lambda: list(DEFAULT_GRID))
    area_coverage: float = 0.5
    bootstrap_resamples: int = 10_000
    seed: int = 42
    intersection_only: bool = False
    estimator: str = "plateau-trapezoid"
    alpha_grid: list[float] = field(default_factory=lambda: list(DEFAULT_ALPHAS))
    chunk_replicates: int = 0  # 0: sized from the population

    def check(self) -> None:
        """Usage errors before any work is done."""
        if self.loss not in artifact.LOSSES:
            raise UsageError(f"--loss {self.loss}: choose abs or abs_norm")
        if self.estimator not in engine.ESTIMATORS:
            raise UsageError(f"--estimator {self.estimator}: choose one of "
                             f"{', '.join(engine.ESTIMATORS)}")
        if not 0.0 < self.area_coverage <= 1.0:
            raise UsageError(f"--area-coverage {self.area_coverage!r} is not in (0, 1]")
        if not self.coverage_grid:
            raise UsageError("--coverage-grid needs at least one value")
        for c in self.coverage_grid:
            if not 0.0 < c <= 1.0:
                raise UsageError(f"--coverage-grid value {c!r} is not in (0, 1]")
        keys = [artifact.grid_key(c) for c in self.coverage_grid]
        if len(set(keys)) != len(keys):
            raise UsageError("--coverage-grid values must differ in their first two decimals")
        if not self.alpha_grid:
            raise UsageError("--alpha-grid needs at least one value")
        for a in self.alpha_grid:
            if not (math.isfinite(a) and a >= 0.0):
                raise UsageError(f"--alpha-grid value {a!r} is not a finite number >= 0")
        keys = [artifact.grid_key(a) for a in self.alpha_grid]
        if len(set(keys)) != len(keys):
            raise UsageError("--alpha-grid values must differ in their first two decimals")
        if self.bootstrap_resamples > MAX_RESAMPLES:
            raise UsageError(f"--bootstrap-resamples {self.bootstrap_resamples} is more than "
                             f"{MAX_RESAMPLES:,}")
        if not 0 <= self.seed < 2**32:
            raise UsageError(f"--seed {self.seed} is not in 0..2**32-1")
        if self.bootstrap_resamples > 0 and self.estimator != "plateau-trapezoid":
            raise UsageError("bootstrap CIs are computed for --estimator plateau-trapezoid; "
                             "pass --bootstrap-resamples 0 with another estimator")


@dataclass
class Evaluation:
    """What `run` produced: the artifact (SPEC §6), for the CLI to store, write and print."""

    artifact: dict[str, Any]


def _csfs(opts: Options, inputs: list[Input], problems: dict[tuple[int, str], str],
          series: list[engine.Series]) -> tuple[list[engine.Series], dict[str, str]]:
    chosen, skip_unsupported = csf.select(opts.confidence)
    skipped: dict[str, str] = {}
    for c in chosen:
        for input_no, inp in enumerate(inputs):
            problem = problems.get((input_no, c.name))
            if problem is None:
                continue
            where = f"run {inp.run_id}, experiment {inp.mode}, {problem}"
            if not skip_unsupported:
                raise InputError(f"confidence {c.name} cannot be computed: {where}")
            skipped.setdefault(c.name, where)
    kept = [s for s in series if s.csf.name not in skipped]
    if not kept:
        raise InputError("no confidence function can be computed for these inputs: "
                         + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    return kept, skipped


def run(con: duckdb.DuckDBPyConnection, opts: Options,
        progress: Callable[[int, int], None] | None = None) -> Evaluation:
    """Evaluate; nothing is written to the warehouse but ingested inputs."""
    opts.check()
    inputs = resolve(con, opts.inputs, opts.modes)
    pop = population(inputs, opts.intersection_only)
    chosen, _ = csf.select(opts.confidence)
    series, problems = engine.build_scored(con, inputs, chosen, pop.participants, opts.loss,
                                           opts.estimator)
    kept, skipped = _csfs(opts, inputs, problems, series)
    for name, why in skipped.items():
        print(f"skipped confidence {name}: {why}", file=sys.stderr)
    engine.drop_series(con, kept)
    b = max(opts.bootstrap_resamples, 0)
    res = _compute_all(con, opts, kept, pop.participants, b, progress)
    boot = {"seed": opts.seed, "n_resamples": b} if b > 0 else None
    variants: dict[str, Any] = {}
    deltas: dict[str, Any] = {}
    names = list(dict.fromkeys(s.csf.name for s in kept))
    for name in names:
        per_input = [s for s in kept if s.csf.name == name]
        ms = [artifact.series_metrics(res, s, area_c=opts.area_coverage,
                                      grid=opts.coverage_grid, alphas=opts.alpha_grid,
                                      bootstrap=boot) for s in per_input]
        if len(inputs) == 1:
            variants[name] = ms[0]
        else:
            variants[name] = {f"input_{k}": m for k, m in enumerate(ms)}
            deltas[name] = artifact.deltas(res, per_input[0], per_input[1], opts.coverage_grid,
                                           b > 0)
    art: dict[str, Any] = {
        "schema_version": "1",
        "created_at": artifact.utc_now(),
        # sha256 and experiment_id pin the data: a later `ingest --replace` changes a run
        "inputs": [{"path": i.label, "run_id": i.run_id, "git_commit": i.git_commit,
                    "mode": i.mode, "sha256": i.sha256, "experiment_id": i.experiment_id}
                   for i in inputs],
        "population": dict(pop.counts),
        "loss": artifact.loss_entry(opts.loss, inputs[0].score_range),
        "estimator": opts.estimator,
        "confidence_variants": variants,
        "skipped_variants": skipped,
        "comparison": {"enabled": len(inputs) == 2, "intersection_only": opts.intersection_only,
                       "deltas": deltas if len(inputs) == 2 else None, **pop.comparison},
        "options": {"coverage_grid": opts.coverage_grid, "area_coverage": opts.area_coverage,
                    "alpha_grid": opts.alpha_grid, "bootstrap_resamples": b, "seed": opts.seed,
                    "confidence": opts.confidence, "riskcov_version": __version__},
    }
    if len(inputs) == 1:  # paired, each input's Cmax is in its own metrics
        items, predicted = pop.counts["items_total"], _predicted(con, inputs[0])
        art["population"]["items_predicted"] = predicted
        art["population"]["cmax"] = predicted / items if items else 0.0
    return Evaluation(art)


def _predicted(con: duckdb.DuckDBPyConnection, inp: Input) -> int:
    row = one(con.execute("SELECT count(pred) FROM items JOIN eval_participants USING (participant_id)"
                      " WHERE experiment_id = ?", [inp.experiment_id]))
    return int(row[0]) if row else 0


def _compute_all(con: duckdb.DuckDBPyConnection, opts: Options, series: list[engine.Series],
                 participants: list[int], b: int,
                 progress: Callable[[int, int], None] | None) -> engine.Results:
    """Metrics for replicate 0..B, replicate chunks sized to bound memory."""
    kwargs = {"area_c": opts.area_coverage, "grid": opts.coverage_grid,
              "alphas": opts.alpha_grid, "estimator": opts.estimator}
    chunk = opts.chunk_replicates or engine.replicates_per_chunk(con, b)
    total = engine.Results(b + 1)
    done = 0
    for rep, pid, mult in sample_chunks(participants, b, opts.seed, chunk):
        engine.load_samples(con, rep, pid, mult)
        engine.compute(con, series, total, **kwargs)  # type: ignore[arg-type]
        engine.copy_aliases(series, total)
        if progress and len(rep):
            done = int(rep[-1])
            progress(done, b)
    return total
