"""`riskcov evaluate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from riskcov.cli.app import WarehouseOpt, app, floats, guarded, publishes, stderr_bar
from riskcov.warehouse import open_warehouse


@app.command()
@guarded
@publishes
def evaluate(
    inputs: Annotated[
        list[str] | None,
        typer.Option(
            "--input",
            help="Run file (ingested on the fly) or an ingested run_id; twice to compare.",
            show_default=False,
        ),
    ] = None,
    modes: Annotated[
        list[str] | None,
        typer.Option("--mode", help="PHQ-8 experiment mode: once for all inputs or once per input."),
    ] = None,
    methods: Annotated[
        list[str] | None,
        typer.Option("--method", help="Per-sample experiment method (once, or once per input)."),
    ] = None,
    experiment_seeds: Annotated[
        list[str] | None,
        typer.Option("--experiment-seed", help="Per-sample experiment seed (--seed is the bootstrap's)."),
    ] = None,
    splits: Annotated[
        list[str] | None, typer.Option("--split", help="Per-sample experiment split, e.g. test.")
    ] = None,
    domains: Annotated[
        list[str] | None, typer.Option("--domain", help="Per-sample experiment domain, id or ood.")
    ] = None,
    loss: Annotated[
        str | None,
        typer.Option(
            help="abs or abs_norm (PHQ-8; default abs_norm), given (per-sample; the default).",
            show_default=False,
        ),
    ] = None,
    confidence: Annotated[
        str, typer.Option(help="default, all, a CSF name, or secondary:<a>+<b>:average|product.")
    ] = "default",
    coverage_grid: Annotated[
        str | None, typer.Option(help="MAE@coverage points, default 0.1,...,0.9.")
    ] = None,
    area_coverage: Annotated[float, typer.Option(help="C of AURC@C, in (0, 1].")] = 0.5,
    bootstrap_resamples: Annotated[
        int, typer.Option(help="Participant-cluster bootstrap resamples (<= 0: none).")
    ] = 10_000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed (recorded).")] = 42,
    output: Annotated[
        Path | None,
        typer.Option(help="Artifact path (default: beside the warehouse, artifacts/evaluation_<id>.json)."),
    ] = None,
    intersection_only: Annotated[
        bool, typer.Option("--intersection-only", help="Paired: compare the overlapping participants.")
    ] = False,
    estimator: Annotated[
        str, typer.Option(help="plateau-trapezoid, item-step or item-trapezoid.")
    ] = "plateau-trapezoid",
    alpha_grid: Annotated[
        str | None, typer.Option(help="Coverage@Risk budgets, default 0.01,0.02,0.05,0.1,0.15,0.2.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The artifact on stdout, nothing else.")] = False,
    warehouse: WarehouseOpt = None,
) -> None:
    """RC curves, AURC/AUGRC, MAE@coverage, oracle metrics and bootstrap CIs for 1-2 inputs."""
    from riskcov.evaluate import Options, evaluate_and_store

    opts = Options(
        inputs=inputs or [],
        modes=modes or [],
        methods=methods or [],
        seeds=experiment_seeds or [],
        splits=splits or [],
        domains=domains or [],
        loss=loss,
        confidence=confidence,
        area_coverage=area_coverage,
        bootstrap_resamples=bootstrap_resamples,
        seed=seed,
        intersection_only=intersection_only,
        estimator=estimator,
    )
    grid = floats("--coverage-grid", coverage_grid)
    alphas = floats("--alpha-grid", alpha_grid)
    if grid is not None:
        opts.coverage_grid = grid
    if alphas is not None:
        opts.alpha_grid = alphas
    opts.check()  # usage errors before the warehouse is opened
    with (
        open_warehouse(warehouse) as con,
        stderr_bar(opts.bootstrap_resamples >= 1000, "bootstrap", opts.bootstrap_resamples) as update,
    ):
        progress = (lambda done, total: update(completed=done)) if update else None
        result = evaluate_and_store(con, opts, output, warehouse, progress)
    for name, why in result.skipped.items():
        typer.echo(f"skipped confidence {name}: {why}", err=True)
    if as_json:
        from riskcov.report.artifact import dumps

        typer.echo(dumps(result.artifact))
    else:
        from rich.console import Console

        from riskcov.report import summary

        summary.render(result.artifact, Console(width=140), str(result.path))
