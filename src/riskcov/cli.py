"""The typer CLI: each command opens the warehouse and calls one library function."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import duckdb
import typer

from riskcov.errors import RiskcovError, UsageError
from riskcov.ingest import expand_paths, ingest_paths
from riskcov.runs import list_runs
from riskcov.warehouse import open_warehouse

try:  # typer >= 0.25 vendors click
    from typer._click.exceptions import ClickException, NoArgsIsHelpError
except ImportError:  # pragma: no cover - older typer on real click
    from click.exceptions import ClickException, NoArgsIsHelpError  # type: ignore[no-redef]
from typer.core import TyperGroup


class _OneLineErrors(TyperGroup):
    """Usage errors (a missing option, a value of the wrong type) as one `error:` line and
    exit 2, like every other riskcov error, instead of click's boxed usage text."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        try:
            rv = super().main(*args, **{**kwargs, "standalone_mode": False})
        except NoArgsIsHelpError as exc:
            exc.show()
            rv = exc.exit_code
        except ClickException as exc:
            _err(exc.format_message().replace("\n", " "))
            rv = exc.exit_code
        except typer.Abort:
            _err("aborted")
            rv = 1
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


app = typer.Typer(
    cls=_OneLineErrors,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="riskcov: a DuckDB metrics warehouse for selective prediction.",
)


def _version(value: bool) -> None:
    if value:
        from riskcov import __version__

        typer.echo(f"riskcov {__version__} (duckdb {duckdb.__version__})")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the riskcov and DuckDB versions.")] = False,
) -> None:
    """riskcov: a DuckDB metrics warehouse for selective prediction."""

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
        except duckdb.Error as exc:
            _err(f"database error: {str(exc).splitlines()[0]}")
            raise typer.Exit(1) from None

    return wrapper


@contextmanager
def _stderr_bar(show: bool, label: str, total: int) -> Iterator[Callable[..., Any] | None]:
    """A transient rich progress bar on stderr, yielding its update(completed=..., advance=...,
    description=...); None (draw nothing) unless `show` and stderr is a terminal."""
    if not (show and sys.stderr.isatty()):
        yield None
        return
    from functools import partial

    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        yield partial(bar.update, bar.add_task(label, total=total))


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
    big = sum(p.stat().st_size for p in files if p.is_file()) > 32 * 2**20
    with open_warehouse(warehouse) as con, \
            _stderr_bar(len(files) >= 5 or big, "ingesting", len(files)) as update:
        step = (lambda p: update(advance=1, description=f"ingesting {p.name}")) if update else None
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
    if not listing:
        typer.echo("no runs yet: riskcov ingest PATH...")
        return
    from rich.console import Console
    from rich.table import Table

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


def _floats(flag: str, text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{flag} {text}: give comma-separated numbers, e.g. 0.1,0.2") from None


@app.command()
@guarded
def evaluate(
    inputs: Annotated[list[str] | None, typer.Option(
        "--input", help="Run JSON path (ingested on the fly) or an ingested run_id; twice to "
        "compare.", show_default=False)] = None,
    modes: Annotated[list[str] | None, typer.Option("--mode", help="Experiment mode: once for "
                                                    "all inputs or once per input.")] = None,
    loss: Annotated[str, typer.Option(help="abs or abs_norm.")] = "abs_norm",
    confidence: Annotated[str, typer.Option(help="default, all, a CSF name, or "
                                            "secondary:<a>+<b>:average|product.")] = "default",
    coverage_grid: Annotated[str | None, typer.Option(
        help="MAE@coverage points, default 0.1,...,0.9.")] = None,
    area_coverage: Annotated[float, typer.Option(help="C of AURC@C, in (0, 1].")] = 0.5,
    bootstrap_resamples: Annotated[int, typer.Option(help="Participant-cluster bootstrap "
                                                     "resamples (<= 0: none).")] = 10_000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed (recorded).")] = 42,
    output: Annotated[Path | None, typer.Option(help="Artifact path (default: beside the "
                                                "warehouse, artifacts/evaluation_<id>.json).")] = None,
    intersection_only: Annotated[bool, typer.Option(
        "--intersection-only", help="Paired: compare the overlapping participants.")] = False,
    estimator: Annotated[str, typer.Option(help="plateau-trapezoid, item-step or "
                                           "item-trapezoid.")] = "plateau-trapezoid",
    alpha_grid: Annotated[str | None, typer.Option(
        help="Coverage@Risk budgets, default 0.01,0.02,0.05,0.1,0.15,0.2.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The artifact on stdout, nothing "
                                          "else.")] = False,
    warehouse: WarehouseOpt = None,
) -> None:
    """RC curves, AURC/AUGRC, MAE@coverage, oracle metrics and bootstrap CIs for 1-2 inputs."""
    from riskcov import artifact as art_mod
    from riskcov import evaluate as ev
    from riskcov import store, summary

    opts = ev.Options(inputs=inputs or [], modes=modes or [], loss=loss, confidence=confidence,
                      area_coverage=area_coverage, bootstrap_resamples=bootstrap_resamples,
                      seed=seed, intersection_only=intersection_only, estimator=estimator)
    grid = _floats("--coverage-grid", coverage_grid)
    alphas = _floats("--alpha-grid", alpha_grid)
    if grid is not None:
        opts.coverage_grid = grid
    if alphas is not None:
        opts.alpha_grid = alphas
    opts.check()  # usage errors before the warehouse is opened
    with open_warehouse(warehouse) as con, _stderr_bar(
            opts.bootstrap_resamples >= 1000, "bootstrap", opts.bootstrap_resamples) as update:
        progress = (lambda done, total: update(completed=done)) if update else None
        # one transaction: inputs ingested on the fly, stored rows and the artifact land
        # together or not at all
        con.execute("BEGIN TRANSACTION")
        try:
            result = ev.run(con, opts, progress)
            evaluation_id = store.next_id(con)
            path = output or store.default_artifact_path(warehouse, evaluation_id)
            store.save(con, evaluation_id, result.artifact, str(path))
            art_mod.write(result.artifact, path)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    if as_json:
        typer.echo(art_mod.dumps(result.artifact))
    else:
        from rich.console import Console

        summary.render(result.artifact, Console(width=140), str(path))


def main() -> None:
    """Console-script entry point."""
    app()
