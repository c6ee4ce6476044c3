"""The docstring examples that open a warehouse (tests/doctest_modules.py): the functional
tier's, since a unit test needs none (docs/testing.md)."""

from __future__ import annotations

import pytest

from doctest_modules import WAREHOUSE_EXAMPLES, run_examples


@pytest.mark.parametrize("name", sorted(WAREHOUSE_EXAMPLES))
def test_docstring_examples_with_a_warehouse(name: str) -> None:
    run_examples(name)
