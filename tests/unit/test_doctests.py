"""Every docstring example in the package runs (the installed package, as users import it)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import riskcov

MODULES = sorted(m.name for m in pkgutil.walk_packages(riskcov.__path__, "riskcov."))


def test_every_module_is_found():
    assert {"riskcov.db", "riskcov.scoring.csf", "riskcov.metrics.hull"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
