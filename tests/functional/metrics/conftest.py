"""Fixtures of tests/metrics: the typer app in-process (stdout and stderr apart) and fresh
warehouses copied from the session's prepared (migrated, SQL installed) template
(`warehouse_template`, tests/conftest.py)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

Invoke = Callable[[Sequence[str | os.PathLike[str]]], Any]


@pytest.fixture
def riskcov(run_cli: Any) -> Invoke:
    """`riskcov([...args])`: the shared `run_cli` runner with the args as one sequence."""
    return lambda args: run_cli(list(args))


@pytest.fixture
def new_warehouse(warehouse_template: Path) -> Callable[[Path], Path]:
    """`new_warehouse(path)`: a fresh empty warehouse file at `path` (a copy of the template)."""

    def make(path: Path) -> Path:
        shutil.copyfile(warehouse_template, path)
        return path

    return make


@pytest.fixture
def warehouse(tmp_path: Path, new_warehouse: Callable[[Path], Path]) -> Path:
    """A fresh empty warehouse in this test's tmp_path."""
    return new_warehouse(tmp_path / "w.duckdb")
