"""Locate the `sql/` and `migrations/` folders, inside the wheel or in a source checkout."""

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """The folder `name` (`sql` or `migrations`): packaged copy first, then the repo's.

    >>> resource_dir("sql").is_dir()
    True
    """
    packaged = _PACKAGE / name
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parents[1] / name
