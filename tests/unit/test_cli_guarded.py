"""cli.app.guarded: a typed riskcov error that a cleanup statement hid (DuckDB refuses every
statement of an aborted transaction: "Current transaction is aborted") is still reported as
itself, one line and its exit code, not as an internal error (exit 70)."""

from __future__ import annotations

import duckdb
import pytest
import typer

from riskcov.cli.app import INTERNAL_ERROR, guarded
from riskcov.errors import InputError
from riskcov.warehouse.committed import STORED


def _hidden(first: Exception) -> None:
    try:
        raise first
    except Exception:  # the context is the hidden failure, as a cleanup in `except` leaves it
        raise RuntimeError("TransactionContext Error: Current transaction is aborted (please ROLLBACK)")  # noqa: B904


def test_a_typed_error_a_cleanup_hid_keeps_its_line_and_code(capsys):
    with pytest.raises(typer.Exit) as done:
        guarded(_hidden)(InputError("run.jsonl: unreadable JSON lines: duplicate key"))
    assert done.value.exit_code == 1
    assert capsys.readouterr().err == "error: run.jsonl: unreadable JSON lines: duplicate key\n"


def test_another_hidden_failure_is_still_a_bug(capsys):
    with pytest.raises(typer.Exit) as done:
        guarded(_hidden)(KeyError("x"))
    assert done.value.exit_code == INTERNAL_ERROR
    assert capsys.readouterr().err.startswith("error: internal error (KeyError: 'x'); the work in progress")


def _raise(exc: BaseException) -> None:
    raise exc


@pytest.mark.parametrize(
    ("exc", "shown"),
    [
        (
            MemoryError("Unable to allocate 89.3 MiB for an array with shape (13, 900001)"),
            "MemoryError: Unable to allocate 89.3 MiB for an array with shape (13, 900001)",
        ),
        (
            duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate data of size 64.0 MiB"),
            "OutOfMemoryException: Out of Memory Error: failed to allocate data of size 64.0 MiB",
        ),
    ],
)
def test_running_out_of_memory_is_the_machines_exit_6(exc, shown, capsys):
    """Under `ulimit -v` a bootstrap the estimate let through ended in 'internal error ... This is
    a bug in riskcov' (exit 70); docs/reliability.md gives exit 6."""
    STORED.clear()
    with pytest.raises(typer.Exit) as done:
        guarded(_raise)(exc)
    assert done.value.exit_code == 6
    assert capsys.readouterr().err == f"error: out of memory ({shown}); nothing of this command was stored\n"
