"""`riskcov curve`."""

from pathlib import Path
from typing import Annotated

import typer

from riskcov.cli.app import WarehouseOpt, app, guarded
from riskcov.cli.selection import SELECTED_BY_OPTIONS, ConfidenceOpt, Selection, selecting
from riskcov.evaluation.prepared_warehouse import open_warehouse


@app.command()
@guarded
@selecting
def curve(
    runs: Annotated[list[str], typer.Argument(help="One run (file or run_id), or two to compare.")],
    output: Annotated[Path, typer.Option(help="File to write.", show_default=False)],
    points: Annotated[int, typer.Option(help="Coverages per curve, 0..Cmax.")] = 201,
    fmt: Annotated[str, typer.Option("--format", help="csv, parquet or json.")] = "csv",
    selection: Selection = SELECTED_BY_OPTIONS,
    confidence: ConfidenceOpt = "default",
    warehouse: WarehouseOpt = None,
) -> None:
    """RC curves at K coverages (first working point with coverage >= c), nothing stored."""
    from riskcov.evaluation.curve_export import check_format, curve_rows, write
    from riskcov.evaluation.options import Options

    check_format(fmt)
    opts = Options(
        inputs=runs,
        **selection.fields(),
        confidence=confidence,
        bootstrap_resamples=0,
        curve_points=points,
    )
    opts.check()
    with open_warehouse(warehouse) as con:
        rows = curve_rows(con, opts, points)
    write(rows, fmt, output)
    typer.echo(f"wrote {output}: {len(rows)} rows")
