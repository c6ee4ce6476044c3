"""`riskcov publish`: the read-only BI snapshot."""

from pathlib import Path
from typing import Annotated

import typer

from riskcov.cli.app import WarehouseOpt, app, guarded
from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.warehouse.connection import resolve_path
from riskcov.warehouse.publish import publish_snapshot, resolve_target


@app.command()
@guarded
def publish(
    to: Annotated[
        Path | None,
        typer.Option(
            "--to",
            help="Snapshot file (default $RISKCOV_BI_PATH, else riskcov-bi.duckdb beside the warehouse).",
            show_default=False,
        ),
    ] = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """Write the BI snapshot (tables, views, materialised metrics and rc_points) and swap it in."""
    with open_warehouse(warehouse) as con:
        done = publish_snapshot(con, resolve_target(to, resolve_path(warehouse)))
    typer.echo(done.summary())
