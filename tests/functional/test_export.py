"""`riskcov export`: every table and the materialised metric tables as Parquet or CSV, rows in
key order, unknown names refused with the valid ones listed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = REPO_ROOT / "examples" / "example_run.json"
USER_TABLES = (
    "SELECT table_name FROM duckdb_tables() WHERE table_name NOT IN ('schema_migrations', 'warehouse_meta')"
)


@pytest.fixture
def example_warehouse(warehouse_path, run_cli):
    assert run_cli(["ingest", EXAMPLE, "--warehouse", warehouse_path]).exit_code == 0
    return warehouse_path


def test_default_export_writes_every_table_as_parquet_beside_the_warehouse(example_warehouse, run_cli, sql):
    result = run_cli(["export", "--warehouse", example_warehouse])
    out = example_warehouse.parent / "exports"
    base = sorted(r[0] for r in sql(example_warehouse, USER_TABLES))
    counts = {t: sql(example_warehouse, f"SELECT count(*) FROM {t}")[0][0] for t in base}
    counts |= {"metrics": 52, "rc_points": 4844}
    tables = sorted(counts)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [f"{t}: {counts[t]} rows -> {out / t}.parquet" for t in tables]
    assert sorted(os.listdir(out)) == [f"{t}.parquet" for t in tables]
    assert counts["items"] == 624


def test_parquet_rows_are_the_tables_in_key_order(example_warehouse, run_cli, sql, tmp_path):
    out = tmp_path / "out"
    result = run_cli(
        ["export", "items", "metrics", "rc_points", "--out", out, "--warehouse", example_warehouse]
    )
    assert result.stdout == (
        f"items: 624 rows -> {out / 'items.parquet'}\n"
        f"metrics: 52 rows -> {out / 'metrics.parquet'}\n"
        f"rc_points: 4844 rows -> {out / 'rc_points.parquet'}\n"
    )
    expected = {
        "items": "SELECT * FROM items ORDER BY experiment_id, participant_id, item_index",
        "metrics": "SELECT * FROM v_metrics ORDER BY experiment_id, csf, loss",
        "rc_points": "SELECT * EXCLUDE (series) FROM v_rc_points ORDER BY experiment_id, csf, loss, plateau",
    }
    for table, query in expected.items():
        assert sql(example_warehouse, f"FROM read_parquet('{out / table}.parquet')") == sql(
            example_warehouse, query
        ), table
    first = sql(
        example_warehouse, f"SELECT experiment_id, csf, loss, plateau FROM '{out}/rc_points.parquet' LIMIT 2"
    )
    assert first == [(1, "consistency", "abs", 1), (1, "consistency", "abs", 2)]


def test_csv_export_has_a_header_and_the_same_bytes_twice(example_warehouse, run_cli, tmp_path):
    out = tmp_path / "csv"
    args = ["export", "--format", "csv", "runs", "metrics", "--out", out, "--warehouse", example_warehouse]
    assert run_cli(args).exit_code == 0
    first = (out / "metrics.csv").read_bytes()
    assert run_cli(args).exit_code == 0
    assert (out / "metrics.csv").read_bytes() == first
    lines = first.decode().splitlines()
    assert lines[0] == (
        "run_id,run_timestamp,experiment_id,mode,method,seed,split,domain,csf,loss,cmax,aurc_full,"
        "augrc_full,aurc_optimal,augrc_optimal,eaurc,eaugrc,area_coverage,aurc_at_c,augrc_at_c,n_points,"
        "aurc_optimal_population,eaurc_population,prob_ece,prob_nll,prob_brier,aurc_ba,augrc_ba"
    )
    assert len(lines) == 53
    assert lines[1].split(",")[:11] == [
        "synthetic-p41-s0-zero_shot-few_shot",
        "2025-01-15T12:00:00",
        "1",
        "zero_shot",
        "",
        "",
        "",
        "",
        "consistency",
        "abs",
        "0.6826923076923077",
    ]
    assert sorted(os.listdir(out)) == ["metrics.csv", "runs.csv"]


def test_unknown_table_is_refused_with_the_valid_names(example_warehouse, run_cli, tmp_path):
    out = tmp_path / "never"
    result = run_cli(["export", "runs", "nope", "--out", out, "--warehouse", example_warehouse])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "error: unknown table nope; valid tables: calibrators, command_runs, evaluation_curves, "
        "evaluation_group_metrics, evaluation_metrics, evaluations, experiments, item_signals, items, "
        "metrics, ood_results, participants, rc_points, risk_control_group_coverage, "
        "risk_control_p_values, risk_control_results, runs, sample_attributes, sample_scores, samples, "
        "scod_results, user_csfs\n"
    )
    assert not out.exists()


def test_unknown_format_is_refused_before_the_warehouse_is_opened(tmp_path, run_cli):
    result = run_cli(["export", "--format", "xlsx", "--warehouse", tmp_path / "w.duckdb"])
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        "error: --format xlsx: give parquet or csv\n",
    )
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("kind", ["file", "under_a_file"])
def test_an_out_folder_that_cannot_be_made_is_one_line_exit_2(kind, example_warehouse, run_cli, tmp_path):
    """mkdir's OSError escaped as an internal error (exit 70)."""
    if kind == "file":
        blocker = tmp_path / "taken"
        blocker.write_text("mine\n")
        out, reason = blocker, "File exists"
    else:
        blocker = tmp_path / "plain"
        blocker.write_text("mine\n")
        out, reason = blocker / "sub", "Not a directory"
    result = run_cli(["export", "--out", out, "--warehouse", example_warehouse])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"error: --out {out}: cannot make the folder: {reason}\n"
    assert blocker.read_text() == "mine\n"


def test_a_killed_exports_temporary_file_is_removed_by_the_next_export(example_warehouse, run_cli, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    proc = subprocess.Popen(["true"])
    proc.wait()
    stale = out / f".runs.parquet.{proc.pid}.tmp"
    stale.write_bytes(b"half a parquet file")
    other = out / f".notes.txt.{proc.pid}.tmp"  # not a table this export writes: left alone
    other.write_bytes(b"x")
    assert run_cli(["export", "runs", "--out", out, "--warehouse", example_warehouse]).exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == [other.name, "runs.parquet"]
