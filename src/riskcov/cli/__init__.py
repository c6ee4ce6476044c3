"""The typer CLI: each command opens the warehouse and calls one library function.

One module per command group; `app` holds the shared options and the error mapping. The
command modules do without `from __future__ import annotations`: typer reads every command's
signature on each call, and string annotations would be compiled and evaluated anew each time
(tests/functional/test_startup.py checks they are not).
"""

import sys
from typing import Annotated

try:  # a Ctrl-C while the CLI is still loading: one line, like one during a command
    import typer

    from riskcov.cli import (
        calibrate,
        csf,
        curve,
        evaluate,
        export,
        history,
        ingest,
        plot,
        publish,
        riskcontrol,
        scod,
        sql,
        warehouse,
    )
    from riskcov.cli.app import WarehouseOpt, app
except KeyboardInterrupt:
    sys.stderr.write("error: interrupted; the work in progress was rolled back\n")
    raise SystemExit(130) from None  # INTERRUPTED of cli.app, which may not be loaded yet


def _version(value: bool) -> None:
    if value:
        import duckdb

        from riskcov import __version__

        typer.echo(f"riskcov {__version__} (duckdb {duckdb.__version__})")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the riskcov and DuckDB versions."
        ),
    ] = False,
    warehouse: WarehouseOpt = None,
) -> None:
    """riskcov: a DuckDB metrics warehouse for selective prediction."""
    from riskcov.warehouse import connection as store

    store.GROUP_PATH = warehouse  # set on every invocation, so it never leaks into the next


def main() -> None:
    """Console-script entry point."""
    app()


__all__ = [
    "app",
    "calibrate",
    "csf",
    "curve",
    "evaluate",
    "export",
    "history",
    "ingest",
    "main",
    "plot",
    "publish",
    "riskcontrol",
    "scod",
    "sql",
    "warehouse",
]
