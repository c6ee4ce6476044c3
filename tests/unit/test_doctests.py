"""Every docstring example in the package runs (the installed package, as users import it).

Only modules that hold an example are collected: a module without one would only prove that
it imports, which every other test already does."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import riskcov


def _has_example(name: str) -> bool:
    spec = importlib.util.find_spec(name)
    return bool(spec and spec.origin) and ">>> " in Path(str(spec.origin)).read_text()


MODULES = sorted(m.name for m in pkgutil.walk_packages(riskcov.__path__, "riskcov.") if _has_example(m.name))


def test_modules_with_examples_are_found():
    assert {"riskcov.warehouse.duckdb_helpers", "riskcov.scoring.csf", "riskcov.metrics.hull"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert (result.failed, result.attempted > 0) == (0, True)
