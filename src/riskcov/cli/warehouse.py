"""`riskcov runs`, `riskcov migrate` and `riskcov doctor`: what the warehouse holds, its schema
and its file."""

import json
from typing import Annotated

import typer

from riskcov.cli.app import NOT_WRITTEN, WarehouseOpt, app, guarded, publishes
from riskcov.errors import RiskcovError
from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.warehouse.connection import check_database_file, resolve_path
from riskcov.warehouse.runs import list_runs


@app.command()
@guarded
def runs(
    as_json: Annotated[bool, typer.Option("--json", help="JSON on stdout.")] = False,
    warehouse: WarehouseOpt = None,
) -> None:
    """List ingested runs and experiments with participant, item and abstention counts."""
    path = resolve_path(warehouse)
    if not path.exists():  # a listing must not create a warehouse
        typer.echo("[]" if as_json else f"no warehouse at {path} yet: riskcov ingest PATH...")
        return
    with open_warehouse(path, read_only=True) as con:
        listing = list_runs(con)
    if as_json:
        typer.echo(json.dumps(listing, indent=2))
        return
    if not listing:
        typer.echo("no runs yet: riskcov ingest PATH...")
        return
    tables = []
    for kind, header in (
        ("PHQ-8", ["run_id", "mode", "participants", "failed", "items", "predicted", "abstained"]),
        ("per-sample", ["run_id", "experiment", "clusters", "failed", "samples", "predicted", "abstained"]),
    ):
        rows = [
            [
                run["run_id"],
                str(e["mode"]),
                str(e["participants"]),
                str(e["failed"]),
                str(e["items"]),
                str(e["predicted"]),
                str(e["abstained"]),
                f"{e['abstention_rate']:.1%}",
                run["ingested_at"][:19],
            ]
            for run in listing
            for e in run["experiments"]
            if e["kind"] == kind
        ]
        if rows:  # a warehouse of one kind shows one table, as before
            tables.append(_table([*header, "abstention", "ingested_at"], rows))
    typer.echo("\n\n".join(tables))


def _table(header: list[str], rows: list[list[str]]) -> str:
    """Left-aligned columns, one space of padding each side (rich's borderless table, without
    importing rich: `riskcov runs` stays a quick start).

    >>> print(_table(["a", "bb"], [["xyz", "1"]]).replace(" ", "."))
    .a....bb.
    .xyz..1..
    """
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        " " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " " for r in [header, *rows]
    )


@app.command()
@guarded
@publishes
def migrate(
    list_only: Annotated[bool, typer.Option("--list", help="Show migrations; write nothing.")] = False,
    warehouse: WarehouseOpt = None,
) -> object:
    """Apply pending schema migrations (opening the warehouse does it too)."""
    from riskcov.warehouse import migrations
    from riskcov.warehouse.connection import connect, resolve_path

    path = resolve_path(warehouse)
    known = migrations.load_migrations()
    if list_only:
        con = connect(path, read_only=True) if path.exists() else None
        try:
            for s in migrations.status(con, known):
                state = f"applied {s.applied_at[:19]}" if s.applied_at else "pending"
                typer.echo(f"{s.migration.version:04d}_{s.migration.name}  {state}")
        finally:
            if con is not None:
                con.close()
        return NOT_WRITTEN
    con = connect(path)
    try:
        applied = migrations.migrate(con, known)
    finally:
        con.close()
    for m in applied:
        typer.echo(f"applied {m.version:04d}_{m.name}")
    if not applied:
        typer.echo("up to date")
    return None


@app.command()
@guarded
def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="JSON on stdout.")] = False,
    reclaim: Annotated[
        bool,
        typer.Option(
            "--reclaim",
            help="First give back the free space at the end of the file (writes: takes the "
            "warehouse's lock, like any writing command).",
        ),
    ] = False,
    warehouse: WarehouseOpt = None,
) -> None:
    """The warehouse file's size beside its content (DuckDB's blocks, the WAL), its
    migrations, runs and experiments, and temporary files a killed command left
    (docs/reliability.md)."""
    from riskcov.warehouse import health

    path = resolve_path(warehouse)
    if not path.exists():  # a report must not create a warehouse
        raise RiskcovError(f"no warehouse at {path}: ingest a run first, or pass --warehouse")
    check_database_file(path)
    if reclaim:
        with open_warehouse(path) as con:
            health.reclaim(con)
    report = health.examine(path)
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=2, allow_nan=False))
        return
    typer.echo("\n".join(health.describe(report)))
