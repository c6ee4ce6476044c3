"""cli.failures.interrupted_query: which failures are a Ctrl-C (exit 130), not a riskcov bug."""

from __future__ import annotations

from riskcov.cli.failures import interrupted_query


def _raised_while(handling: BaseException, then: Exception) -> Exception:
    try:
        try:
            raise handling
        except BaseException:
            raise then from None  # `from None` hides the cause, not the context
    except Exception as exc:
        return exc


def test_a_statement_failing_while_an_interrupt_is_handled_is_the_interrupt():
    late = _raised_while(KeyboardInterrupt(), RuntimeError("Resource In Use Error: unfinished result"))
    assert interrupted_query(late) is True


def test_duckdbs_wrapped_keyboard_interrupt_is_an_interrupt():
    assert interrupted_query(RuntimeError("Error: KeyboardInterrupt: ")) is True
    assert interrupted_query(RuntimeError("Query interrupted")) is True


def test_duckdbs_wrapped_traceback_of_a_keyboard_interrupt_is_an_interrupt():
    """What a Ctrl-C late in calibrate gave in CI (exit 70, 'internal error (Error: Traceback
    (most recent call last):)'): DuckDB's Error carrying a Python callback's traceback."""
    text = 'Traceback (most recent call last):\n  File "x.py", line 1, in scan\nKeyboardInterrupt\n'
    assert interrupted_query(RuntimeError(text)) is True
    other = 'Traceback (most recent call last):\n  File "x.py", line 1, in scan\nValueError: bad\n'
    assert interrupted_query(RuntimeError(other)) is False


def test_other_failures_are_not():
    assert interrupted_query(RuntimeError("Resource In Use Error: unfinished result")) is False
    assert interrupted_query(_raised_while(ValueError("x"), RuntimeError("y"))) is False
