"""`riskcov calibrate`."""

from pathlib import Path
from typing import Annotated

import typer

from riskcov.cli.app import WarehouseOpt, app, guarded, publishes
from riskcov.evaluation.prepared_warehouse import open_warehouse


def _show(value: object) -> str:
    return "-" if value is None else f"{value:.6f}"


@app.command()
@guarded
@publishes
def calibrate(
    input_: Annotated[
        str, typer.Option("--input", help="Run file (ingested on the fly) or an ingested run_id.")
    ],
    method: Annotated[str, typer.Option(help="temperature, platt, logistic or isotonic.")],
    features: Annotated[
        str,
        typer.Option(
            help="Signal names, comma-separated, e.g. token_msp; of a per-sample run its score "
            "columns by CSF name (confidence, msp, ...) and prob."
        ),
    ],
    mode: Annotated[str | None, typer.Option(help="Experiment mode of the run.")] = None,
    split: Annotated[
        str | None, typer.Option(help="Per-sample experiment split to fit on, e.g. cal.", show_default=False)
    ] = None,
    experiment_method: Annotated[
        str | None, typer.Option(help="Per-sample experiment method (--method is the calibrator's).")
    ] = None,
    experiment_seed: Annotated[str | None, typer.Option(help="Per-sample experiment seed.")] = None,
    domain: Annotated[str | None, typer.Option(help="Per-sample experiment domain, id or ood.")] = None,
    target: Annotated[str, typer.Option(help="correctness, near_correct or loss.")] = "correctness",
    output: Annotated[Path | None, typer.Option(help="Also write the calibrator JSON here.")] = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """Fit a calibrator (docs/calibration.md) on one experiment's predicted items, or a
    per-sample split's samples, and store it."""
    from riskcov.evaluation.calibrate import CalibrateOptions, experiment_criteria
    from riskcov.evaluation.calibrate import calibrate as fit_and_store

    opts = CalibrateOptions(
        input=input_,
        mode=mode,
        method=method,
        features=[f.strip() for f in features.split(",")],
        target=target,
        output=output,
        criteria=experiment_criteria(experiment_method, experiment_seed, split, domain),
    )
    opts.check()  # usage errors before the warehouse is opened
    with open_warehouse(warehouse) as con:
        done = fit_and_store(con, opts)
    doc = done.artifact
    fitted = doc["fitted_on"]
    where = done.experiment if done.per_sample else f"mode {fitted['mode'] or '-'}"
    units = "samples" if done.per_sample else "items"
    typer.echo(
        f"calibrator {done.calibrator_id}: {doc['method']} of {', '.join(doc['features'])} "
        f"(target {doc['target']}) on run {fitted['run']}, {where}, {fitted['n']} {units}"
    )
    if done.path is not None:
        typer.echo(f"written to {done.path}")
    m = doc["metrics"]
    typer.echo(f"{'metric':<8}{'before':>12}{'after':>12}")
    for key in ("ece", "nll", "brier", "auroc"):
        typer.echo(f"{key:<8}{_show(m[f'{key}_before']):>12}{_show(m[f'{key}_after']):>12}")
