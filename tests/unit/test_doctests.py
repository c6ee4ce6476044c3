"""Every docstring example in the package that needs no warehouse runs (the installed package,
as users import it); those that open one run in tests/functional/test_doctests_warehouse.py.

Only modules that hold an example are collected: a module without one would only prove that
it imports, which every other test already does."""

from __future__ import annotations

import pytest

from doctest_modules import MODULES, UNIT_MODULES, WAREHOUSE_EXAMPLES, run_examples


def test_modules_with_examples_are_found():
    assert {"riskcov.warehouse.duckdb_helpers", "riskcov.scoring.csf", "riskcov.metrics.hull"} <= set(
        UNIT_MODULES
    )
    assert set(MODULES) >= WAREHOUSE_EXAMPLES


@pytest.mark.parametrize("name", UNIT_MODULES)
def test_docstring_examples(name: str) -> None:
    run_examples(name)
