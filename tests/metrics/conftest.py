"""Fixtures of tests/metrics: the typer app in-process (stdout and stderr apart) and fresh
warehouses copied from one prepared (migrated, SQL installed) template per session."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from riskcov.cli import app
from riskcov.warehouse import open_warehouse


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    stdout: str
    stderr: str
    exception: BaseException | None

    @property
    def crashed(self) -> bool:
        """An exception escaped the command (a traceback for the user)."""
        return self.exception is not None and not isinstance(self.exception, SystemExit)


Invoke = Callable[[Sequence[str | os.PathLike[str]]], Outcome]


@pytest.fixture
def riskcov() -> Invoke:
    """`riskcov([...args])`: run `riskcov ...` in-process; RISKCOV_WAREHOUSE never leaks in."""
    runner = CliRunner()

    def invoke(args: Sequence[str | os.PathLike[str]]) -> Outcome:
        r = runner.invoke(app, [str(a) for a in args], env={"RISKCOV_WAREHOUSE": None})
        return Outcome(r.exit_code, r.stdout, r.stderr, r.exception)

    return invoke


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
