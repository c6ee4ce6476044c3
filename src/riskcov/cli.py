"""The typer CLI: each command opens the warehouse and calls one library function."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from riskcov.errors import RiskcovError
from riskcov.ingest import expand_paths, ingest_paths
from riskcov.runs import list_runs
from riskcov.warehouse import open_warehouse

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="riskcov: a DuckDB metrics warehouse for selective prediction.",
)

WarehouseOpt = Annotated[
    Path | None,
    typer.Option("--warehouse", help="DuckDB file (default $RISKCOV_WAREHOUSE or "
                 "warehouse/riskcov.duckdb).", show_default=False),
]
T = TypeVar("T")


def _err(message: str) -> None:
    typer.echo(f"error: {message}", err=True)


def guarded(fn: Callable[..., T]) -> Callable[..., T]:
    """Turn typed riskcov errors into one line on stderr and their exit code."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        try:
            return fn(*args, **kwargs)
        except RiskcovError as exc:
            _err(str(exc))
            raise typer.Exit(exc.exit_code) from None

    return wrapper


@contextmanager
def _progress(paths: list[Path]) -> Iterator[Callable[[Path], None] | None]:
    """A rich progress bar on stderr for many or large files; nothing when stderr is no terminal."""
    big = sum(p.stat().st_size for p in paths if p.is_file()) > 32 * 2**20
    if not sys.stderr.isatty() or (len(paths) < 5 and not big):
        yield None
        return
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("ingesting", total=len(paths))

        def step(path: Path) -> None:
            progress.update(task, advance=1, description=f"ingesting {path.name}")

        yield step


@app.command()
@guarded
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Run JSON files or folders of them.")],
    replace: Annotated[bool, typer.Option("--replace", help="Swap a run whose run_id is "
                                          "already ingested with other content.")] = False,
    warehouse: WarehouseOpt = None,
) -> None:
    """Validate run files and load them, one transaction per file."""
    files = expand_paths(paths)
    with open_warehouse(warehouse) as con, _progress(files) as step:
        results = ingest_paths(con, files, replace=replace, on_file=step)
    for r in results:
        if r.status == "error":
            _err(r.message)
        else:
            typer.echo(f"{r.status} {r.path}: {r.message}")
    if not files:
        _err("no run files found")
    if not files or any(r.status == "error" for r in results):
        raise typer.Exit(1)


@app.command()
@guarded
def runs(
    as_json: Annotated[bool, typer.Option("--json", help="JSON on stdout.")] = False,
    warehouse: WarehouseOpt = None,
) -> None:
    """List ingested runs and experiments with participant, item and abstention counts."""
    with open_warehouse(warehouse) as con:
        listing = list_runs(con)
    if as_json:
        typer.echo(json.dumps(listing, indent=2))
        return
    table = Table("run_id", "mode", "participants", "failed", "items", "predicted", "abstained",
                  "abstention", "ingested_at", box=None)
    for run in listing:
        for e in run["experiments"]:
            table.add_row(run["run_id"], str(e["mode"]), str(e["participants"]), str(e["failed"]),
                          str(e["items"]), str(e["predicted"]), str(e["abstained"]),
                          f"{e['abstention_rate']:.1%}", run["ingested_at"][:19])
    Console(width=200).print(table)


@app.command()
@guarded
def migrate(
    list_only: Annotated[bool, typer.Option("--list", help="Show migrations; write nothing.")] = False,
    warehouse: WarehouseOpt = None,
) -> None:
    """Apply pending schema migrations (opening the warehouse does it too)."""
    from riskcov import migrations
    from riskcov.warehouse import connect, resolve_path

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
        return
    con = connect(path)
    try:
        applied = migrations.migrate(con, known)
    finally:
        con.close()
    for m in applied:
        typer.echo(f"applied {m.version:04d}_{m.name}")
    if not applied:
        typer.echo("up to date")


def main() -> None:
    """Console-script entry point."""
    app()
