"""What a failure that reaches the CLI's edge was (cli/app.guarded turns it into a message and
an exit code): the failure a cleanup step hid, and DuckDB's forms of a Ctrl-C."""


def first_failure(exc: BaseException) -> BaseException:
    """The failure a cleanup step hid: a statement run after a failed one inside a transaction
    raises "Current transaction is aborted"; the failure that aborted it is its context.

    >>> try:
    ...     try:
    ...         raise OSError(28, "No space left on device")
    ...     except OSError:
    ...         raise RuntimeError("Current transaction is aborted (please ROLLBACK)")
    ... except RuntimeError as exc:
    ...     first_failure(exc)
    OSError(28, 'No space left on device')
    """
    while "transaction is aborted" in str(exc) and exc.__context__ is not None:
        exc = exc.__context__
    return exc


def interrupted_query(exc: BaseException) -> bool:
    """True for DuckDB's answer to a Ctrl-C during a query (it takes the signal itself and
    raises InterruptException, or RuntimeError("Query interrupted") from numpy transfers).

    >>> interrupted_query(RuntimeError("Query interrupted")), interrupted_query(RuntimeError("x"))
    (True, False)
    """
    seen: BaseException | None = exc
    while seen is not None:  # or a statement that failed while an interrupt was handled
        if type(seen).__name__ == "InterruptException" or isinstance(seen, KeyboardInterrupt):
            return True  # duckdb's (without importing duckdb here), or Python's
        text = str(seen)
        # DuckDB reports a KeyboardInterrupt raised inside its Python callbacks as an Error:
        # "Error: KeyboardInterrupt: ", or the callback's whole traceback ending in it
        if text.startswith(("Query interrupted", "KeyboardInterrupt")) or "Error: KeyboardInterrupt" in text:
            return True
        if text.startswith("Traceback (most recent call last):") and any(
            line.strip().startswith("KeyboardInterrupt") for line in text.splitlines()
        ):
            return True
        seen = seen.__context__
    return False
