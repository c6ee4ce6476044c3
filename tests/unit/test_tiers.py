"""The test tiers (docs/testing.md): a unit test needs no warehouse, so no module of tests/unit
opens one, ingests a file or runs the CLI, and no docstring example the unit tier runs opens
one; those tests live in tests/functional."""

from __future__ import annotations

import re
from pathlib import Path

from test_doctests import UNIT_MODULES

from doctest_modules import OPENS_A_WAREHOUSE, WAREHOUSE_EXAMPLES, examples_source

UNIT = Path(__file__).resolve().parent
# what opens a warehouse: the opener, the ingest, the CLI runner and the warehouse fixtures
NEEDS_A_WAREHOUSE = re.compile(r"\b(open_warehouse|ingest_file|run_cli|warehouse_template|warehouse_path)\b")


def test_no_unit_test_opens_a_warehouse():
    found = {
        path.name: sorted(set(NEEDS_A_WAREHOUSE.findall(path.read_text())))
        for path in sorted(UNIT.glob("*.py"))
        if path.name != Path(__file__).name
    }
    assert {name: uses for name, uses in found.items() if uses} == {}


def test_the_pattern_finds_a_warehouse_opener():
    assert NEEDS_A_WAREHOUSE.findall("with open_warehouse(p) as con: run_cli(['runs'])") == [
        "open_warehouse",
        "run_cli",
    ]


def test_no_unit_doctest_opens_a_warehouse():
    found = {name: sorted(set(OPENS_A_WAREHOUSE.findall(examples_source(name)))) for name in UNIT_MODULES}
    assert {name: uses for name, uses in found.items() if uses} == {}


def test_the_warehouse_examples_are_found_by_the_pattern():
    """Each module moved to the functional tier opens a warehouse in an example (so the check
    above would catch it back in the unit tier)."""
    assert all(OPENS_A_WAREHOUSE.search(examples_source(name)) for name in WAREHOUSE_EXAMPLES)
