"""Locate the `sql/` and `migrations/` folders, inside the wheel or in a source checkout, and read
the constant lists of sql/ that Python needs as defaults."""

import re
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


def sql_list(macro: str) -> tuple[float, ...]:
    """The numbers of the list literal that the scalar macro `macro` of sql/ returns, for a
    default Python needs before any warehouse is open (e.g. a command's --help).

    >>> sql_list("rc_ood_default_targets")
    (0.6, 0.7, 0.8, 0.9)
    """
    text = (resource_dir("sql") / f"{macro}.sql").read_text()
    found = re.search(rf"MACRO {macro}\(\) AS \[([^\]]*)\]", text)
    if found is None:
        raise ValueError(f"sql/{macro}.sql has no `MACRO {macro}() AS [...]`")
    return tuple(float(x) for x in found.group(1).split(","))
