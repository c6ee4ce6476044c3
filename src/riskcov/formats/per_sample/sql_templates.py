"""The per-sample ingest's SQL statements (sql/per_sample/, one statement per file): each file
is a template whose contract header names the fields it takes (`-- fills: a, b`), written
`{{a}}` in its text. `render` fills them with SQL fragments built from the file's columns
(table names, column lists, list literals) and refuses a missing or unknown field, so a
template and its caller cannot drift apart silently.

>>> print(render("ordered", ordered="o", typed="t", experiments="e").splitlines()[4])
CREATE TEMP TABLE o AS
"""

from __future__ import annotations

import re
from functools import cache

from riskcov.resources import resource_dir

_FIELD = re.compile(r"\{\{(\w+)\}\}")
_FILLS = re.compile(r"^-- fills: *(.*)$", re.MULTILINE)


@cache
def template(name: str) -> tuple[frozenset[str], str]:
    """(the fields of its header, its text) of sql/per_sample/<name>.sql, checked: the header
    names the file (`-- template: <name>`) and the fields the text uses, no more, no fewer."""
    text = (resource_dir("sql") / "per_sample" / f"{name}.sql").read_text()
    if not text.startswith(f"-- template: {name}\n"):
        raise ValueError(f"sql/per_sample/{name}.sql: the header must start with `-- template: {name}`")
    found = _FILLS.search(text)
    declared = frozenset(f.strip() for f in found.group(1).split(",") if f.strip()) if found else frozenset()
    used = frozenset(_FIELD.findall(text))
    if declared != used:
        raise ValueError(
            f"sql/per_sample/{name}.sql: `-- fills:` names {sorted(declared)}, the text {sorted(used)}"
        )
    return declared, text


def render(name: str, /, **fields: object) -> str:
    """The statement of template `name` with its fields filled (each given as SQL text)."""
    declared, text = template(name)
    if set(fields) != declared:
        raise ValueError(f"template {name} takes {sorted(declared)}, not {sorted(fields)}")
    return _FIELD.sub(lambda m: str(fields[m.group(1)]), text)
