"""`riskcov export`: tables as Parquet or CSV files."""

from pathlib import Path
from typing import Annotated

import typer

from riskcov.cli.app import WarehouseOpt, app, guarded
from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.warehouse.connection import resolve_path
from riskcov.warehouse.export import check_format, export_tables


@app.command()
@guarded
def export(
    tables: Annotated[
        list[str] | None,
        typer.Argument(
            help="Tables to write (default: every table, metrics and rc_points).", show_default=False
        ),
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="parquet or csv.")] = "parquet",
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Folder (default: exports/ beside the warehouse).", show_default=False),
    ] = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """Write tables to <out>/<table>.parquet|csv, rows in key order."""
    check_format(fmt)
    folder = out if out is not None else resolve_path(warehouse).parent / "exports"
    with open_warehouse(warehouse, must_exist=True, read_only=True) as con:
        written = export_tables(con, fmt, folder, tables or [])
    for e in written:
        typer.echo(f"{e.table}: {e.rows} rows -> {e.path}")
