"""The artifact of an evaluation (docs/formats.md) from its computed Results, whichever engine
filled them and wherever the inputs were read: the warehouse's experiments (evaluation/run.py)
or a table Spark read where it lies (evaluation/spark_input.py)."""

from __future__ import annotations

from typing import Any

import duckdb

from riskcov import __version__
from riskcov.bootstrap.ranks import rank_stability
from riskcov.evaluation.options import Options
from riskcov.ingest.inputs import Input
from riskcov.metrics.engine import Results
from riskcov.report import artifact
from riskcov.scoring.scored import Series
from riskcov.warehouse.duckdb_helpers import one

# the keys of an input's `calibration` entry (docs/metrics.md), whichever engine computed them
CALIBRATION_KEYS = ("n", "ece", "nll", "brier", "n_bins")


def artifact_of(
    opts: Options,
    res: Results,
    kept: list[Series],
    inputs: list[dict[str, Any]],
    population: dict[str, Any],
    loss: dict[str, Any],
    skipped: dict[str, str],
    comparison: dict[str, int],
) -> dict[str, Any]:
    """The artifact's dict: one variant per CSF (per input when paired), the deltas of a pair,
    the options, and rank stability (several CSFs, or a pair's (input, CSF)s) with replicates.
    `population`: the counts and N (and K of a single input); Cmax is added here."""
    b = max(opts.bootstrap_resamples, 0)
    paired = len(inputs) == 2
    boot = {"seed": opts.seed, "n_resamples": b} if b > 0 else None
    variants: dict[str, Any] = {}
    deltas: dict[str, Any] = {}
    for name in dict.fromkeys(s.csf.name for s in kept):
        per_input = [s for s in kept if s.csf.name == name]
        ms = [
            artifact.series_metrics(
                res,
                s,
                area_c=opts.area_coverage,
                grid=opts.coverage_grid,
                alphas=opts.alpha_grid,
                bootstrap=boot,
                costs=opts.costs if opts.estimator == "plateau-trapezoid" else None,
            )
            for s in per_input
        ]
        if not paired:
            variants[name] = ms[0]
        else:
            variants[name] = {f"input_{k}": m for k, m in enumerate(ms)}
            deltas[name] = artifact.deltas(res, per_input[0], per_input[1], opts.coverage_grid, b > 0)
    if not paired:  # paired, each input's Cmax is in its own metrics
        population = {**population, "cmax": float(res.scalars["cmax"][kept[0].index, 0])}
    art: dict[str, Any] = {
        "schema_version": "1",
        "created_at": artifact.utc_now(),
        # sha256 and experiment_id (or a Spark input's fingerprint) pin the data
        "inputs": inputs,
        "population": population,
        "loss": loss,
        "estimator": opts.estimator,
        "confidence_variants": variants,
        "skipped_variants": skipped,
        "comparison": {
            "enabled": paired,
            "intersection_only": opts.intersection_only,
            "deltas": deltas if paired else None,
            **comparison,
        },
        "options": {
            "coverage_grid": opts.coverage_grid,
            "area_coverage": opts.area_coverage,
            "alpha_grid": opts.alpha_grid,
            "costs": opts.costs,
            "bootstrap_resamples": b,
            "seed": opts.seed,
            "confidence": opts.confidence,
            "riskcov_version": __version__,
            **({"engine": "spark"} if opts.engine == "spark" else {}),
        },
    }
    contestants = _contestants(kept, len(inputs))
    if b > 0 and len(contestants) >= 2:  # docs/metrics-extended.md
        rows = [s.index for s in contestants.values()]
        art["rank_stability"] = rank_stability(
            list(contestants), res.scalars["aurc_full"][rows, 1:], "aurc_full"
        )
        if paired:  # which input and CSF each contestant is
            art["rank_stability"]["contestants"] = {
                name: {"input": f"input_{s.input_no}", "csf": s.csf.name} for name, s in contestants.items()
            }
    return art


def _contestants(kept: list[Series], n_inputs: int) -> dict[str, Series]:
    """What rank stability ranks (docs/metrics-extended.md), by name: each CSF of a single
    input; with paired inputs each (input, CSF) as `input_<k>:<csf>`, all over the same
    paired replicates. Aliases (a CSF computed as another's series) count once per name."""
    out: dict[str, Series] = {}
    for s in kept:
        out.setdefault(s.csf.name if n_inputs == 1 else f"input_{s.input_no}:{s.csf.name}", s)
    return out


def input_entry(con: duckdb.DuckDBPyConnection, inp: Input) -> dict[str, Any]:
    """An input's entry of the artifact's `inputs` (docs/formats.md)."""
    entry: dict[str, Any] = {
        "path": inp.label,
        "run_id": inp.run_id,
        "git_commit": inp.git_commit,
        "mode": inp.mode,
        "sha256": inp.sha256,
        "experiment_id": inp.experiment_id,
    }
    if inp.per_sample:
        entry.update({k: inp.fields[k] for k in ("method", "seed", "split", "domain")})
        # docs/metrics.md: the experiment's own `prob`, when its file gave one and losses are 0/1
        row = one(
            con.execute(
                f"SELECT {', '.join(CALIBRATION_KEYS)} FROM v_prob_calibration WHERE experiment_id = ?",
                [inp.experiment_id],
            )
        )
        entry["calibration"] = None if row is None else dict(zip(CALIBRATION_KEYS, row, strict=True))
    return entry


def sample_csfs(con: duckdb.DuckDBPyConnection, inp: Input) -> list[str]:
    """The score columns a per-sample experiment stored, by name."""
    return [
        r[0]
        for r in con.execute(
            "SELECT DISTINCT csf FROM sample_scores WHERE experiment_id = ? ORDER BY csf", [inp.experiment_id]
        ).fetchall()
    ]
