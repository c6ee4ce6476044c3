"""Fixtures of tests/metrics: the typer app in-process (stdout and stderr apart) and fresh
warehouses copied from one prepared (migrated, SQL installed) template per session."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from riskcov.warehouse import open_warehouse

Invoke = Callable[[Sequence[str | os.PathLike[str]]], Any]


@pytest.fixture
def riskcov(run_cli: Any) -> Invoke:
    """`riskcov([...args])`: the shared `run_cli` runner with the args as one sequence."""
    return lambda args: run_cli(list(args))


@pytest.fixture(scope="session")
def warehouse_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty warehouse, migrated and with the SQL objects installed (done once: ~0.2 s)."""
    path = tmp_path_factory.mktemp("template") / "template.duckdb"
    with open_warehouse(path):
        pass
    return path


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
