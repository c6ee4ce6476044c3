"""`riskcov ingest`."""

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from riskcov.cli.app import (
    NOT_WRITTEN,
    ExitAfterWriting,
    WarehouseOpt,
    app,
    err,
    guarded,
    publishes,
    stderr_bar,
)
from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.formats import IngestOptions
from riskcov.ingest import MAX_FILE_BYTES, expand_paths, ingest_paths
from riskcov.warehouse.read_ahead import reading_ahead


@app.command()
@guarded
@publishes
def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Run files (PHQ-8 run JSON; per-sample .csv, .parquet, .jsonl, .ndjson) or folders."
        ),
    ],
    replace: Annotated[
        bool,
        typer.Option("--replace", help="Swap a run whose run_id is already ingested with other content."),
    ] = False,
    run_id: Annotated[
        str | None,
        typer.Option("--run-id", help="Per-sample tables: the run's id (default: the file's stem)."),
    ] = None,
    method: Annotated[
        str | None,
        typer.Option(help="Per-sample tables: method of rows without a method column (default: file stem)."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Per-sample tables: seed of rows without a seed column (default 0).")
    ] = None,
    split: Annotated[
        str | None,
        typer.Option(help="Per-sample tables: split of rows without a split column (default test)."),
    ] = None,
    domain: Annotated[
        str | None,
        typer.Option(help="Per-sample tables: id or ood for rows without a domain column (default id)."),
    ] = None,
    warehouse: WarehouseOpt = None,
) -> object:
    """Validate run files and load them, one transaction per file."""
    files = expand_paths(paths)
    sizes = {p: p.stat().st_size if p.is_file() else 0 for p in files}
    total = sum(sizes.values())
    # the first file is read and hashed on a thread while the warehouse opens (read_ahead)
    with (
        reading_ahead(files[0] if files else None, MAX_FILE_BYTES),
        open_warehouse(warehouse) as con,
        stderr_bar(len(files) >= 5 or total > 32 * 2**20, "ingesting", max(total, 1)) as update,
    ):
        progress, step = _tracker(update, sizes)
        options = IngestOptions(
            run_id=run_id, method=method, seed=seed, split=split, domain=domain, progress=progress
        )
        results = ingest_paths(con, files, replace=replace, options=options, on_file=step)
    for r in results:
        if r.status == "error":
            err(r.message)
        else:
            typer.echo(f"{r.status} {r.path}: {r.message}")
    if not files:
        err("no run files found")
    stored = any(r.status in ("ingested", "replaced") for r in results)
    if not files or any(r.status == "error" for r in results):
        raise ExitAfterWriting(1) if stored else typer.Exit(1)
    return None if stored else NOT_WRITTEN  # all unchanged: no snapshot is due


def _tracker(
    update: Callable[..., Any] | None, sizes: dict[Path, int]
) -> tuple[Callable[[float, str], None] | None, Callable[[Path], None] | None]:
    """(progress, on_file) that move the bar by bytes: a file's size once it is done, and in
    between the share of it its format reports (parsing, validating, storing)."""
    if update is None:
        return None, None
    done, name, size = 0, "", 0

    def on_file(path: Path) -> None:
        nonlocal done, name, size
        done += size  # the previous file is finished
        name, size = path.name, sizes.get(path, 0)
        update(completed=done, description=f"ingesting {name}")

    def progress(share: float, stage: str) -> None:
        update(completed=done + share * size, description=f"{stage} {name}")

    return progress, on_file
