"""The oracle's harmonic numbers built on a second connection while an ingest's metric tables
compute their rounds (riskcov.warehouse.beside, metric_rows): the stored rows are those of one
connection bit for bit, the build ends with the refresh (also when it fails), and a connection
whose macros are not committed falls back to building them itself."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from riskcov.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


def _inputs(shared_dir: Path) -> list[Path]:
    # PHQ-8 items with 0/1 and continuous losses, and per-sample experiments of many sizes
    return [
        shared_dir / "fixtures" / "runs" / "public_continuous.json",
        ROOT / "examples" / "selective_samples.parquet",
    ]


def _attached(con) -> list[str]:
    rows = con.execute(
        "SELECT database_name FROM duckdb_databases() WHERE database_name LIKE 'riskcov_beside%'"
    )
    return [r[0] for r in rows.fetchall()]


def _builders() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "riskcov-beside"]


def _refreshed(con, *, beside: bool) -> list[tuple[object, ...]]:
    from riskcov.warehouse import metric_tables

    con.execute("BEGIN")
    try:
        metric_tables.refresh(con, beside=beside)
        return con.execute("SELECT * FROM metrics ORDER BY experiment_id, csf, loss").fetchall()
    finally:
        con.execute("ROLLBACK")


def test_the_harmonic_numbers_built_beside_give_the_metrics_of_one_connection_bit_for_bit(
    warehouse_path, run_cli, shared_dir, monkeypatch
):
    from riskcov.evaluation.prepared_warehouse import open_warehouse
    from riskcov.warehouse import metric_rows

    for path in _inputs(shared_dir):
        assert run_cli(["ingest", path, "--warehouse", warehouse_path, "--no-publish"]).exit_code == 0
    used: list[bool] = []
    real = metric_rows._harmonic_beside

    def spy(con, n, harmonic):
        used.append(real(con, n, harmonic))
        return used[-1]

    monkeypatch.setattr(metric_rows, "_harmonic_beside", spy)
    with open_warehouse(warehouse_path) as con:
        alone = _refreshed(con, beside=False)
        together = _refreshed(con, beside=True)
        assert _attached(con) == []
    assert used == [False, True]
    assert together == alone  # floats compared with ==: equal to the last bit (NaN: none here)
    assert len(alone) > 26 and _builders() == []


def test_a_refresh_that_fails_ends_the_build_beside_and_leaves_the_warehouse_unchanged(
    warehouse_path, run_cli, shared_dir, monkeypatch
):
    from riskcov.evaluation.prepared_warehouse import open_warehouse
    from riskcov.ingest import ingest_file
    from riskcov.warehouse import metric_tables

    first, second = _inputs(shared_dir)
    assert run_cli(["ingest", first, "--warehouse", warehouse_path, "--no-publish"]).exit_code == 0

    def failing(*args, **kwargs):
        raise InputError("stop in the rounds")

    monkeypatch.setattr(metric_tables, "_rounds", failing)
    with open_warehouse(warehouse_path) as con:
        before = con.execute("SELECT count(*) FROM runs").fetchall(), con.execute("FROM metrics").fetchall()
        with pytest.raises(InputError, match="stop in the rounds"):
            ingest_file(con, second)
        assert _attached(con) == []
        after = con.execute("SELECT count(*) FROM runs").fetchall(), con.execute("FROM metrics").fetchall()
    assert after == before
    assert _builders() == []


def test_the_harmonic_numbers_are_built_here_when_the_macros_are_not_committed(
    warehouse_path, run_cli, shared_dir
):
    """The second connection sees only committed objects: with rc_harmonic created in the open
    transaction alone, its build fails and the refresh builds them on its own connection."""
    from riskcov.evaluation.prepared_warehouse import open_warehouse
    from riskcov.resources import resource_dir

    for path in _inputs(shared_dir):
        assert run_cli(["ingest", path, "--warehouse", warehouse_path, "--no-publish"]).exit_code == 0
    macro = (resource_dir("sql") / "rc_harmonic.sql").read_text()
    with open_warehouse(warehouse_path) as con:
        alone = _refreshed(con, beside=False)
        con.execute("DROP MACRO TABLE rc_harmonic")  # committed: the second connection lacks it
        con.execute("BEGIN")
        con.execute(macro)
        from riskcov.warehouse import metric_tables

        metric_tables.refresh(con, beside=True)
        rows = con.execute("SELECT * FROM metrics ORDER BY experiment_id, csf, loss").fetchall()
        con.execute("ROLLBACK")
        con.execute(macro)
        assert _attached(con) == []
    assert rows == alone
