"""`render`: riskcov.metrics.portable.render, rendered once per test process for each
(query, dialect, relations, pretty, integral) and the text reused.

Rendering parses the portable queries with sqlglot, inlines and transforms them: it costs
far more than running the result on a property test's few rows, and it is a function of its
arguments alone (the sql/portable/ files do not change during a run), so every example of
a test runs the very text the first call rendered. Tests of the rendering itself (its text,
its dialects) call portable.render."""

from __future__ import annotations

from functools import cache

from riskcov.metrics import portable


@cache
def _render(
    name: str, dialect: str, relations: tuple[tuple[str, str], ...], pretty: bool, integral: bool
) -> str:
    return portable.render(name, dialect, dict(relations) or None, pretty=pretty, integral=integral)


def render(
    name: str,
    dialect: str,
    relations: dict[str, str] | None = None,
    pretty: bool = True,
    integral: bool = False,
) -> str:
    """portable.render(name, dialect, relations, pretty, integral), from the cache after the
    first call with these arguments."""
    return _render(name, dialect, tuple((relations or {}).items()), pretty, integral)
