"""`riskcov plot` (PNG/SVG curves, needs the `plot` extra) and `riskcov report` (an HTML page)."""

from pathlib import Path
from typing import Annotated

import typer

from riskcov.cli.app import WarehouseOpt, app, guarded
from riskcov.cli.selection import SELECTED_BY_OPTIONS, ConfidencesOpt, InputsOpt, Selection, selecting
from riskcov.errors import UsageError
from riskcov.evaluation.prepared_warehouse import open_warehouse


@app.command()
@guarded
@selecting
def plot(
    output: Annotated[Path, typer.Option(help="Picture to write: a .png or .svg file.", show_default=False)],
    inputs: InputsOpt = None,
    selection: Selection = SELECTED_BY_OPTIONS,
    confidence: ConfidencesOpt = None,
    ci: Annotated[bool, typer.Option("--ci", help="Shade the pointwise 95% bootstrap band.")] = False,
    bootstrap_resamples: Annotated[int, typer.Option(help="Resamples of the --ci band.")] = 1000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed of the --ci band.")] = 42,
    from_artifact: Annotated[
        Path | None, typer.Option(help="Draw an artifact's curves instead of evaluating.", show_default=False)
    ] = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """RC and generalized-risk curves, one line per CSF (and input), Cmax marked."""
    from riskcov.report import plot as plotting

    if from_artifact is not None:
        if inputs:
            raise UsageError("give --input or --from-artifact, not both")
        if ci:
            raise UsageError("--ci needs --input: an artifact holds no replicate curves")
        plotting.plot_artifact(from_artifact, output)
    else:
        from riskcov.evaluation.curves import check, plot_run
        from riskcov.evaluation.options import Options

        if not inputs:
            raise UsageError("give --input RUN (once, or twice to compare) or --from-artifact A.json")
        opts = Options(
            inputs=inputs,
            **selection.fields(),
            bootstrap_resamples=bootstrap_resamples,
            seed=seed,
        )
        check(opts, ci)
        plotting.check_output(output)
        plotting.require_matplotlib()
        with open_warehouse(warehouse) as con:
            plot_run(con, opts, confidence or [], ci, output)
    typer.echo(f"wrote {output}")


@app.command()
@guarded
def report(
    output: Annotated[Path, typer.Option(help="HTML file to write.", show_default=False)],
    evaluation: Annotated[
        int | None, typer.Option(help="A stored evaluation's id (the evaluations table).", show_default=False)
    ] = None,
    artifact: Annotated[
        Path | None, typer.Option(help="An artifact JSON written by riskcov evaluate.", show_default=False)
    ] = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """One self-contained HTML page: population, metrics with CIs, paired deltas, curves."""
    from riskcov.report import html, report_data

    if (evaluation is None) == (artifact is None):
        raise UsageError("give one of --evaluation ID or --artifact A.json")
    if artifact is not None:
        data = report_data.from_artifact(report_data.load_artifact(artifact), str(artifact))
    else:
        with open_warehouse(warehouse, must_exist=True) as con:
            data = report_data.from_evaluation(con, evaluation or 0)
    html.report_file(data, output)
    typer.echo(f"wrote {output}")
