"""The typer app, its shared options and the one place errors become messages and exit codes."""

import functools
import inspect
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from riskcov.cli import coercion
from riskcov.cli.failures import first_failure, interrupted_query
from riskcov.cli.lazy import LazyCommands
from riskcov.cli.once import refusing_repeats
from riskcov.errors import ResourceError, RiskcovError, UsageError
from riskcov.warehouse.committed import STORED, interrupted_message, stored_before
from riskcov.warehouse.files import is_full

try:  # typer >= 0.25 vendors click
    from typer._click.exceptions import ClickException, NoArgsIsHelpError
except ImportError:  # pragma: no cover - older typer on real click
    from click.exceptions import ClickException, NoArgsIsHelpError  # type: ignore[no-redef,assignment,unused-ignore]
from typer.core import TyperGroup

coercion.install()  # typer's option values without pydantic where they are plain

INTERNAL_ERROR = 70  # EX_SOFTWARE: a bug in riskcov, not in the user's data or flags
INTERRUPTED = 130
PIPE_CLOSED = 141  # 128 + SIGPIPE, what a shell reports for a command `| head` cut short


class _OneLineErrors(TyperGroup):
    """Usage errors (a missing option, a value of the wrong type) as one `error:` line and
    exit 2, like every other riskcov error, instead of click's boxed usage text."""

    # typer turns a Ctrl-C outside the command (parsing options, the group callback) into a
    # silent exit 130: make it the same Abort as inside one, so it says so in one line
    def make_parser(self, ctx: Any) -> Any:
        return refusing_repeats(super().make_parser(ctx), ctx)

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        try:
            with _help_to_closed_stdout():
                return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            raise typer.Abort() from None

    def invoke(self, ctx: Any) -> Any:
        try:
            with _help_to_closed_stdout():  # a subcommand's context is made here
                return super().invoke(ctx)
        except KeyboardInterrupt:
            raise typer.Abort() from None

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        STORED.clear()  # what this command stores (one process may run several: tests)
        try:
            rv = super().main(*args, **{**kwargs, "standalone_mode": False})
        except NoArgsIsHelpError as exc:
            exc.show()
            rv = exc.exit_code
        except ClickException as exc:
            err(exc.format_message().replace("\n", " "))
            rv = exc.exit_code
        except typer.Abort:
            err(interrupted_message())
            rv = INTERRUPTED
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


app = LazyCommands(
    "riskcov.cli",
    cls=_OneLineErrors,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="riskcov: a DuckDB metrics warehouse for selective prediction.",
    epilog="Exit codes: 0 done, 1 bad data, 2 bad flags, 3 warehouse locked, 4 unknown schema "
    "history, 5 stored but the BI snapshot not refreshed, 6 out of disk or memory (the line says "
    "what was stored), 70 a riskcov bug, 130 interrupted (docs/reliability.md).",
)

WarehouseOpt = Annotated[
    Path | None,
    typer.Option(
        "--warehouse",
        help="DuckDB file (default $RISKCOV_WAREHOUSE or warehouse/riskcov.duckdb).",
        show_default=False,
    ),
]
T = TypeVar("T")
NoPublishOpt = Annotated[
    bool,
    typer.Option("--no-publish", help="Do not refresh the BI snapshot afterwards (also RISKCOV_PUBLISH=0)."),
]


class _NotWritten:
    """What a @publishes command returns when it wrote nothing (no snapshot is due)."""


NOT_WRITTEN = _NotWritten()


class ExitAfterWriting(typer.Exit):
    """A command's exit code after it stored part of its work (ingest: the good files of a
    bad batch): unlike a plain typer.Exit, @publishes still refreshes the snapshot."""


def err(message: str) -> None:
    """One line on stderr."""
    typer.echo(f"error: {message}", err=True)


def guarded(fn: Callable[..., T]) -> Callable[..., T]:
    """Typed riskcov errors become one line and their exit code; anything else escaping the
    library is a riskcov bug: one line that says so, and exit 70."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        try:
            result = fn(*args, **kwargs)
            sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
            return result
        except BrokenPipeError:
            raise stdout_closed() from None
        except RiskcovError as exc:
            err(str(exc))
            raise typer.Exit(exc.exit_code) from None
        except (typer.Exit, typer.Abort):
            raise
        except KeyboardInterrupt:
            raise typer.Abort() from None
        except Exception as raised:
            cause = first_failure(raised)
            if interrupted_query(cause):
                raise typer.Abort() from None
            if isinstance(cause, RiskcovError):  # one a cleanup in the aborted transaction hid
                err(str(cause))
                raise typer.Exit(cause.exit_code) from None
            first = (str(cause).splitlines() or [""])[0]
            if is_full(cause):  # the machine's, not a bug: ulimit -f, a full disk, a quota
                err(f"disk full ({first}); {stored_before()}")
                raise typer.Exit(ResourceError.exit_code) from None
            # the machine's too: numpy's MemoryError, DuckDB's OutOfMemoryException (a ulimit -v,
            # a memory_limit, a machine busier than the bootstrap's estimate assumed)
            if isinstance(cause, MemoryError) or type(cause).__name__ == "OutOfMemoryException":
                err(f"out of memory ({type(cause).__name__}: {first}); {stored_before()}")
                raise typer.Exit(ResourceError.exit_code) from None
            err(
                f"internal error ({type(cause).__name__}: {first}); the work in progress was rolled "
                "back. This is a bug in riskcov: please report it with the command you ran"
            )
            raise typer.Exit(INTERNAL_ERROR) from None

    return wrapper


def stdout_closed() -> typer.Exit:
    """stdout's reader went away (`riskcov sql | head -1`): not a bug. Nothing more goes there;
    one line says so, and the exit (PIPE_CLOSED) to raise."""
    with suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    err(f"stdout was closed before the output was written (broken pipe); {stored_before()}")
    return typer.Exit(PIPE_CLOSED)


@contextmanager
def _help_to_closed_stdout() -> Iterator[None]:
    """The help (--help, a group given no command) and --version are printed while click makes
    a context, outside any command's @guarded: a closed stdout there exits PIPE_CLOSED too, not
    click's silent 1 (a BrokenPipeError) nor rich's (SystemExit(1), raised while handling one)."""
    try:
        yield
    except BrokenPipeError:
        raise stdout_closed() from None
    except SystemExit as exc:
        if isinstance(exc.__context__, BrokenPipeError):
            raise stdout_closed() from None
        raise


def publishes(fn: Callable[..., Any]) -> Callable[..., None]:
    """Opt a writing command into the BI snapshot: one line, `@publishes` under `@guarded`.

    Adds --no-publish; once the command has finished having changed the warehouse publishes
    the snapshot of its `warehouse` argument, unless --no-publish or RISKCOV_PUBLISH=0. A
    command that changed nothing returns NOT_WRITTEN (e.g. a --list, an unchanged ingest); an
    error, or an exit code of the command's own, publishes nothing, except ExitAfterWriting
    (ingest stores the good files of a bad batch) and a stdout closed after the command stored
    its work (guarded's exit PIPE_CLOSED then says what was stored)."""
    from riskcov.warehouse.publish import auto_publish_enabled

    @functools.wraps(fn)
    def wrapper(*args: Any, no_publish: bool = False, **kwargs: Any) -> None:
        try:
            outcome = fn(*args, **kwargs)
        except ExitAfterWriting:
            if auto_publish_enabled(no_publish):
                _publish_after(kwargs.get("warehouse"))
            raise
        except BrokenPipeError:  # stdout's reader went away (`riskcov evaluate ... | head -1`)
            if STORED and auto_publish_enabled(no_publish):  # after the work was stored: its snapshot
                _publish_after(kwargs.get("warehouse"))
            raise
        if outcome is not NOT_WRITTEN and auto_publish_enabled(no_publish):
            _publish_after(kwargs.get("warehouse"))

    signature = inspect.signature(fn, eval_str=True)
    extra = inspect.Parameter(
        "no_publish", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=NoPublishOpt
    )
    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), extra]
    )
    return wrapper


def _publish_after(warehouse: Path | None) -> None:
    from riskcov.errors import PublishError, PublishInterrupted
    from riskcov.evaluation.prepared_warehouse import open_warehouse
    from riskcov.warehouse.connection import resolve_path
    from riskcov.warehouse.publish import publish_snapshot, resolve_target

    stale = "the warehouse is updated but the BI snapshot is not"
    try:
        with open_warehouse(warehouse) as con:
            done = publish_snapshot(con, resolve_target(None, resolve_path(warehouse)))
    except RiskcovError as exc:
        raise PublishError(f"{stale}: {exc}") from exc
    except KeyboardInterrupt:  # not guarded's "rolled back": the command's work was committed
        raise PublishInterrupted(f"interrupted; {stale} (riskcov publish)") from None
    except Exception as exc:
        if interrupted_query(exc):  # DuckDB took the Ctrl-C itself during the copy
            raise PublishInterrupted(f"interrupted; {stale} (riskcov publish)") from None
        raise
    typer.echo(done.summary(), err=True)


@contextmanager
def stderr_bar(show: bool, label: str, total: int) -> Iterator[Callable[..., Any] | None]:
    """A transient rich progress bar on stderr, yielding its update(completed=..., advance=...,
    description=...); None (draw nothing) unless `show` and stderr is a terminal."""
    if not (show and sys.stderr.isatty()):
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        yield functools.partial(bar.update, bar.add_task(label, total=total))


def floats(flag: str, text: str | None) -> list[float] | None:
    """A comma-separated list of numbers given to `flag`, or None when not given."""
    if text is None:
        return None
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{flag} {text}: give comma-separated numbers, e.g. 0.1,0.2") from None
