"""The package's modules holding docstring examples, in the two test tiers (docs/testing.md):
those whose examples open a warehouse (in memory or on disk) run in
tests/functional/test_doctests_warehouse.py, the rest in tests/unit/test_doctests.py.
tests/unit/test_tiers.py checks the unit ones open none."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
import re
from pathlib import Path

import pytest

import riskcov

WAREHOUSE_EXAMPLES = frozenset(
    {
        "riskcov.api",
        "riskcov.api.evaluation",
        "riskcov.api.warehouse",
        "riskcov.evaluation.prepared_warehouse",
        "riskcov.warehouse.runs",
    }
)
# what opens a warehouse in an example: the opener, the Python API's warehouse and evaluate,
# an ingest
OPENS_A_WAREHOUSE = re.compile(r"\b(open_warehouse|Warehouse\(|riskcov\.evaluate\(|ingest_file|\.ingest\()")


def _has_example(name: str) -> bool:
    spec = importlib.util.find_spec(name)
    return bool(spec and spec.origin) and ">>> " in Path(str(spec.origin)).read_text()


MODULES = sorted(m.name for m in pkgutil.walk_packages(riskcov.__path__, "riskcov.") if _has_example(m.name))
UNIT_MODULES = [m for m in MODULES if m not in WAREHOUSE_EXAMPLES]


def examples_source(name: str) -> str:
    """The source of every docstring example of module `name`."""
    tests = doctest.DocTestFinder().find(importlib.import_module(name))
    return "".join(example.source for test in tests for example in test.examples)


def run_examples(name: str) -> None:
    """Run module `name`'s docstring examples; fail unless some ran and all passed."""
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    if (result.failed, result.attempted > 0) != (0, True):
        pytest.fail(f"{name}: {result.failed} of {result.attempted} examples failed")
