"""Shared fixtures: the shared fixture folder, a temp warehouse, table snapshots, a CLI runner."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

import hypothesis_profiles
import riskcov.warehouse.publish  # noqa: F401  (binds the real warehouse.connect before a test patches it)
from riskcov.cli import app
from shared_folder import FIXTURES, SHARED, missing

hypothesis_profiles.load()

REPO_ROOT = Path(__file__).resolve().parents[1]

# every table a run touches, with the columns that differ between two identical ingests dropped
SNAPSHOT_QUERIES = {
    "runs": "SELECT * EXCLUDE (ingested_at) FROM runs ORDER BY run_id",
    "experiments": "SELECT * FROM experiments ORDER BY experiment_id",
    "participants": "SELECT * FROM participants ORDER BY experiment_id, participant_id",
    "items": "SELECT * FROM items ORDER BY experiment_id, participant_id, item_index",
    "item_signals": "SELECT * FROM item_signals ORDER BY experiment_id, participant_id, item_index",
    "samples": "SELECT * FROM samples ORDER BY experiment_id, sample_index",
    "sample_scores": "SELECT * FROM sample_scores ORDER BY experiment_id, csf, sample_index",
    "metrics": "SELECT * FROM metrics ORDER BY experiment_id, csf, loss",
    "rc_points": "SELECT * FROM rc_points ORDER BY experiment_id, csf, loss, replicate, plateau",
    "schema_migrations": "SELECT * FROM schema_migrations ORDER BY version",
    "command_runs": "SELECT * EXCLUDE (created_at) FROM command_runs ORDER BY command_id",
    "risk_control_results": "SELECT * FROM risk_control_results ORDER BY ALL",
    "ood_results": "SELECT * FROM ood_results ORDER BY ALL",
    "calibrators": "SELECT * EXCLUDE (created_at) FROM calibrators ORDER BY calibrator_id",
    "user_csfs": "SELECT * EXCLUDE (created_at) FROM user_csfs ORDER BY name",
}


@pytest.fixture(autouse=True)
def _no_auto_publish(monkeypatch: pytest.MonkeyPatch) -> None:
    """Writing commands skip the BI snapshot (RISKCOV_PUBLISH=0), for speed and so their
    stderr is only their own; subprocesses inherit it. tests/functional/test_publish.py
    turns it back on where it tests publishing."""
    monkeypatch.setenv("RISKCOV_PUBLISH", "0")
    monkeypatch.delenv("RISKCOV_BI_PATH", raising=False)


@pytest.fixture(scope="session")
def warehouse_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty warehouse made once per test process by the real code (migrations, SQL objects)."""
    from riskcov.evaluation.prepared_warehouse import open_warehouse

    path = tmp_path_factory.mktemp("template") / "template.duckdb"
    with open_warehouse(path):
        pass
    return path


@pytest.fixture(autouse=True)
def _warehouses_from_template(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, warehouse_template: Path
) -> None:
    """A warehouse a test creates starts as a copy of the template: creating one (5 migrations,
    ~40 SQL objects bound by DuckDB) costs about a second, the copy a few milliseconds, and
    `prepare` then finds it up to date exactly as it would a fresh one. Tests of creating or
    migrating a warehouse opt out with `@pytest.mark.fresh_warehouse`, and
    RISKCOV_TEST_FRESH_WAREHOUSES=1 turns the copies off for a whole run."""
    if request.node.get_closest_marker("fresh_warehouse") or os.environ.get("RISKCOV_TEST_FRESH_WAREHOUSES"):
        return
    import riskcov.warehouse.connection as warehouse

    real = warehouse.connect

    def connect(path: Path, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
        if not read_only and not path.exists() and not path.with_name(path.name + ".wal").exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(warehouse_template, path)
        return real(path, read_only=read_only)

    monkeypatch.setattr(warehouse, "connect", connect)


@pytest.fixture(scope="session")
def mk() -> Any:
    """scripts/make_example.py as a module (the synthetic run generator)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_example", REPO_ROOT / "scripts" / "make_example.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def paired_artifact(mk: Any, tmp_path: Path) -> Callable[..., dict[str, Any]]:
    """`paired_artifact(name, participants=, run_seed=, **options)`: the artifact of `evaluate.run`
    on a synthetic run's zero_shot vs few_shot (`confidence="all"`, `options` on top), in a
    warehouse of its own, without `created_at` and input paths (what differs between runs)."""
    from riskcov.evaluation import run as evaluate
    from riskcov.evaluation.prepared_warehouse import open_warehouse

    def make(name: str, *, participants: int, run_seed: int, **options: Any) -> dict[str, Any]:
        example = tmp_path / f"ex-{participants}-{run_seed}.json"
        if not example.exists():
            mk.write_run(mk.make_run(participants, seed=run_seed), example)
        opts = evaluate.Options(
            inputs=[str(example)] * 2, modes=["zero_shot", "few_shot"], **{"confidence": "all", **options}
        )
        with open_warehouse(tmp_path / f"{name}.duckdb") as con:
            art = evaluate.run(con, opts).artifact
        art.pop("created_at")
        art["inputs"] = [{k: v for k, v in i.items() if k != "path"} for i in art["inputs"]]
        return art

    return make


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared folder next to the repo (its fixtures/); skip when it is not there, or fail
    under CI=true (tests/shared_folder.py)."""
    if not FIXTURES.is_dir():
        missing(FIXTURES)
    return SHARED


@pytest.fixture
def warehouse_path(tmp_path: Path) -> Path:
    return tmp_path / "w.duckdb"


def snapshot(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """All rows of every warehouse table (runs without ingested_at), for before/after checks."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {name: con.execute(sql).fetchall() for name, sql in SNAPSHOT_QUERIES.items()}
    finally:
        con.close()


def query(path: Path, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """Rows of one read-only query against the warehouse file."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


@dataclass(frozen=True)
class CliResult:
    exit_code: int
    stdout: str
    stderr: str
    exception: BaseException | None = None

    @property
    def crashed(self) -> bool:
        """An exception escaped the command (a traceback for the user)."""
        return self.exception is not None and not isinstance(self.exception, SystemExit)


RunCli = Callable[..., CliResult]


@pytest.fixture
def run_cli() -> RunCli:
    """`run_cli(args, env=None)`: the typer app in-process, stdout and stderr apart.

    RISKCOV_WAREHOUSE is unset unless `env` sets it, so a developer's variable never leaks in.
    """
    runner = CliRunner()

    def invoke(
        args: list[str | os.PathLike[str]],
        env: Mapping[str, str | None] | None = None,
    ) -> CliResult:
        full_env: dict[str, str | None] = {"RISKCOV_WAREHOUSE": None, **(env or {})}
        result = runner.invoke(app, [str(a) for a in args], env=full_env)
        return CliResult(result.exit_code, result.stdout, result.stderr, result.exception)

    return invoke


@pytest.fixture
def unwritable_folder(tmp_path):
    """A folder nothing can be made in: mode 555, and immutable for root (chattr +i)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    root = os.geteuid() == 0
    if root and subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("root, and chattr +i is not available here")
    try:
        yield folder
    finally:
        if root:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(0o755)


@pytest.fixture
def take_snapshot() -> Callable[[Path], dict[str, list[tuple[Any, ...]]]]:
    """The `snapshot` helper as a fixture."""
    return snapshot


@pytest.fixture
def sql() -> Callable[..., list[tuple[Any, ...]]]:
    """The `query` helper as a fixture: `sql(path, "SELECT ...", [params])`."""
    return query


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: renders pages in a headless Chromium (skipped without one)")
    config.addinivalue_line("markers", "fresh_warehouse: warehouses are created by the real code, not copied")


@pytest.fixture(scope="module")
def paired_evaluation(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """A stored paired evaluation of the example run (zero_shot vs few_shot, 50 resamples):
    (warehouse, artifact path, artifact)."""
    import json

    from riskcov.evaluation.prepared_warehouse import open_warehouse
    from riskcov.evaluation.run import Options, evaluate_and_store

    folder = tmp_path_factory.mktemp("paired")
    warehouse, out = folder / "w.duckdb", folder / "paired.json"
    opts = Options(
        inputs=[str(REPO_ROOT / "examples" / "example_run.json")],
        modes=["zero_shot", "few_shot"],
        bootstrap_resamples=50,
    )
    with open_warehouse(warehouse) as con:
        evaluate_and_store(con, opts, out, warehouse)
    return warehouse, out, json.loads(out.read_text())
