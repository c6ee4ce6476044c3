"""Typed errors; the CLI turns them into one line and an exit code.

Exit codes: 0 done; 1 bad data (InputError); 2 bad flags (UsageError); 3 the warehouse is
locked (LockedError); 4 schema history mismatch (MigrationError); 5 stored but the BI snapshot
not refreshed (PublishError); 6 the machine ran out of disk or memory (ResourceError); 70 a bug
in riskcov; 130 interrupted (Ctrl-C); 141 stdout closed early (`| head`). See
docs/reliability.md.
"""


class RiskcovError(Exception):
    """Base class: a message for the user and the exit code it deserves."""

    exit_code = 1


class InputError(RiskcovError):
    """Bad data: a run file, a signal, a missing experiment (exit 1)."""


class UsageError(RiskcovError):
    """Bad flags or flag combinations (exit 2)."""

    exit_code = 2


class LockedError(RiskcovError):
    """The warehouse file is held by another process (exit 3)."""

    exit_code = 3


class MigrationError(RiskcovError):
    """The warehouse's schema history does not match this code (exit 4)."""

    exit_code = 4


class ResourceError(RiskcovError):
    """The machine ran out of something: disk space, a file size limit, memory (exit 6). The
    message says what was stored (nothing, unless it names it)."""

    exit_code = 6


class MissingExtraError(RiskcovError):
    """An optional extra (e.g. matplotlib for `riskcov plot`) is not installed (exit 1)."""


class PublishError(RiskcovError):
    """The command's work is stored, but the BI snapshot could not be refreshed (exit 5)."""

    exit_code = 5


class PublishInterrupted(PublishError):
    """Ctrl-C while publishing after the command's work was stored (exit 130)."""

    exit_code = 130
