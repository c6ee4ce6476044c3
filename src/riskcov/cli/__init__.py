"""The typer CLI: each command opens the warehouse and calls one library function.

One module per command group; `app` holds the shared options and the error mapping. The
command modules do without `from __future__ import annotations`: typer reads every command's
signature on each call, and string annotations would be compiled and evaluated anew each time
(tests/functional/test_startup.py checks they are not).
"""

import signal

# a Ctrl-C while the CLI loads is held until its imports are done: one raised inside an
# extension module's initialisation (DuckDB's) is an ImportError or an abort, not a
# KeyboardInterrupt; it is raised once the mask is restored
_HOLD = getattr(signal, "pthread_sigmask", None)
_mask = _HOLD(signal.SIG_BLOCK, {signal.SIGINT}) if _HOLD else None
import sys  # noqa: E402 - after the mask: typing's import alone takes ~10 ms
from collections.abc import Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from typing import Annotated  # noqa: E402

try:  # a Ctrl-C while the CLI is still loading: one line, like one during a command
    try:
        # DuckDB's extension here, under the mask: nearly every command needs it, and the
        # invoked command's module is imported later (cli/lazy.py)
        import duckdb  # noqa: F401
        import typer

        from riskcov.cli.app import WarehouseOpt, app
        from riskcov.cli.lazy import COMMAND_MODULES
    finally:
        if _HOLD and _mask is not None:
            _HOLD(signal.SIG_SETMASK, _mask)
except KeyboardInterrupt:
    sys.stderr.write("error: interrupted; the work in progress was rolled back\n")
    raise SystemExit(130) from None  # INTERRUPTED of cli.app, which may not be loaded yet


def __getattr__(name: str) -> object:
    """A command module (riskcov.cli.evaluate, ...), imported when first asked for: the CLI
    imports only the invoked command's."""
    if name in COMMAND_MODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    """Run the CLI on sys.argv (raises SystemExit, as typer does)."""
    try:
        with only_invoked(sys.argv[1:]):
            app()
    except KeyboardInterrupt:  # while typer builds the command, before the group's main runs
        from riskcov.cli.app import INTERRUPTED, err
        from riskcov.warehouse.committed import interrupted_message

        err(interrupted_message())
        raise SystemExit(INTERRUPTED) from None


@contextmanager
def only_invoked(args: list[str]) -> Iterator[None]:
    """While the CLI runs on `args`, the app has only the command (or command group) they
    invoke, when they name one, and only its module is imported (cli/lazy.py): typer builds
    every registered command's options, from its signature, on each call (docs/performance.md,
    start-up). Anything else (no command, an option of the group's other than --warehouse, a
    name that is no command: click's suggestions list them all) keeps every command."""
    with app.narrowed(_invoked(args)):
        yield


def _invoked(args: list[str]) -> str | None:
    """The command name `args` give after the group's options, or None.

    >>> _invoked(["--warehouse", "w.duckdb", "evaluate", "--input", "x"]), _invoked(["--version"])
    ('evaluate', None)
    >>> _invoked(["--warehouse=w.duckdb", "csf", "list"]), _invoked(["--warehouse"])
    ('csf', None)
    """
    rest = iter(args)
    for arg in rest:
        if arg == "--warehouse":
            if next(rest, None) is None:
                return None
        elif not arg.startswith("--warehouse="):
            return None if arg.startswith("-") else arg
    return None


def console() -> None:
    """Console-script entry point: main(), then the process ends without tearing the
    interpreter down (freeing every module's objects: DuckDB's, numpy's, typer's), a few tens
    of ms of each command (docs/performance.md). atexit handlers still run, and with a thread
    still running, or an exit status that is not a number, the exit is Python's usual one."""
    try:
        main()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    _leave(code)


def _leave(code: object) -> None:
    import atexit
    import os
    import threading

    status = 0 if code is None else code
    if not isinstance(status, int) or threading.active_count() > 1:
        raise SystemExit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # e.g. a closed pipe: Python's own exit reports it
        raise SystemExit(code) from None
    os._exit(status)


__all__ = [
    "app",
    "calibrate",
    "console",
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
