"""The warehouse's metric tables (issue 11, item 8): filled at ingest by the same SQL as
`evaluate --bootstrap-resamples 0`, swapped with `--replace`, refilled when an older warehouse
migrates; v_metrics / v_rc_points read them."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

PREDS = "sample_id,confidence,correct\na,0.9,1\nb,0.8,1\nc,0.4,0\nd,0.3,1\n"
OTHER = "sample_id,confidence,correct\na,0.9,0\nb,0.8,1\nc,0.4,1\n"
COLUMNS = "experiment_id, csf, loss, cmax, aurc_full, augrc_full, n_points"


def test_ingest_fills_the_tables_with_evaluates_numbers_and_replace_swaps_them(
    warehouse_path, run_cli, sql, tmp_path
):
    preds = tmp_path / "preds.csv"
    preds.write_text(PREDS)
    assert run_cli(["ingest", preds, "--warehouse", warehouse_path]).exit_code == 0
    rows = sql(warehouse_path, f"SELECT {COLUMNS} FROM metrics")
    assert rows == [(1, "confidence", "given", 1.0, 0.11458333333333331, 0.09375, 4)]
    assert sql(warehouse_path, f"SELECT {COLUMNS} FROM v_metrics") == rows
    points = "SELECT plateau, coverage, selective_risk FROM rc_points ORDER BY plateau"
    assert sql(warehouse_path, points) == [(1, 0.25, 0.0), (2, 0.5, 0.0), (3, 0.75, 1 / 3), (4, 1.0, 0.25)]
    evaluated = run_cli(
        [
            "evaluate",
            "--input",
            "preds",
            "--bootstrap-resamples",
            "0",
            "--json",
            "--warehouse",
            warehouse_path,
        ]
    )
    artifact = json.loads(evaluated.stdout)["confidence_variants"]["confidence"]
    assert (artifact["aurc_full"], artifact["augrc_full"]) == rows[0][4:6]
    stored = (
        "SELECT run_id, experiment_id, mode, loss, metric_base, at_value, value FROM evaluation_metrics "
        "WHERE metric IN ('mae_at_coverage_0.60', 'aurc_at_c', 'aurc_full') ORDER BY metric"
    )
    assert sql(warehouse_path, stored) == [
        ("preds", 1, None, "given", "aurc_at_c", 0.5, 0.0),
        ("preds", 1, None, "given", "aurc_full", None, 0.11458333333333331),
        ("preds", 1, None, "given", "mae_at_coverage", 0.6, 1 / 3),
    ]
    # --replace: the run's experiment and its rows go, the new file's come, in one transaction
    preds.write_text(OTHER)
    assert run_cli(["ingest", preds, "--replace", "--warehouse", warehouse_path]).exit_code == 0
    assert sql(warehouse_path, f"SELECT {COLUMNS} FROM metrics") == [
        (2, "confidence", "given", 1.0, 0.7222222222222221, 0.2777777777777778, 3)
    ]
    assert sql(warehouse_path, "SELECT DISTINCT experiment_id FROM rc_points") == [(2,)]


def test_an_older_warehouse_is_filled_when_it_migrates(warehouse_path, run_cli, sql, tmp_path):
    preds = tmp_path / "preds.csv"
    preds.write_text(PREDS)
    assert run_cli(["ingest", preds, "--warehouse", warehouse_path]).exit_code == 0
    con = duckdb.connect(str(warehouse_path))  # undo migration 0006
    for statement in (
        "DROP VIEW v_metrics",
        "DROP VIEW v_rc_points",
        "DROP TABLE metrics",
        "DROP TABLE rc_points",
        "DROP SCHEMA internal CASCADE",
        # 0008 rebuilds 0006's rc_points, 0009 adds columns to its metrics
        "DELETE FROM schema_migrations WHERE version IN (6, 8, 9)",
        *(f'ALTER TABLE evaluation_metrics DROP COLUMN "{c}"' for c in ("run_id", "experiment_id", "mode")),
        *(f'ALTER TABLE evaluation_metrics DROP COLUMN "{c}"' for c in ("loss", "metric_base", "at_value")),
    ):
        con.execute(statement)
    con.close()
    assert run_cli(["runs", "--warehouse", warehouse_path]).exit_code == 0
    assert sql(warehouse_path, f"SELECT {COLUMNS} FROM v_metrics") == [
        (1, "confidence", "given", 1.0, 0.11458333333333331, 0.09375, 4)
    ]
    assert sql(warehouse_path, "SELECT count(*) FROM v_rc_points") == [(4,)]


def test_every_user_table_and_column_has_a_description(warehouse_path, run_cli):
    assert run_cli(["migrate", "--warehouse", warehouse_path]).exit_code == 0
    con = duckdb.connect(str(warehouse_path), read_only=True)
    try:
        where = "database_name = current_database() AND schema_name = 'main' AND comment IS NULL"
        bare_tables = con.execute(f"SELECT table_name FROM duckdb_tables() WHERE {where}").fetchall()
        bare_columns = con.execute(
            "SELECT table_name, column_name FROM duckdb_columns() "
            f"WHERE {where} AND table_name IN (SELECT table_name FROM duckdb_tables()) ORDER BY ALL"
        ).fetchall()
        columns = "SELECT count(*) FROM duckdb_columns() WHERE table_name = 'samples'"
        described = con.execute(columns).fetchall()
    finally:
        con.close()
    assert (bare_tables, bare_columns, described) == ([], [], [(10,)])


CONTINUOUS = (
    "sample_id,confidence,confidence_other,loss\n"
    "a,0.9,0.2,0.25\nb,0.8,0.2,1.5\nc,0.4,0.7,0\nd,0.4,0.1,0.125\n"
)


def test_a_refresh_in_rounds_of_one_csf_stores_the_same_rows_as_one_round(
    warehouse_path, run_cli, tmp_path, monkeypatch, shared_dir
):
    """Each round of CSFs reuses the per-participant sums (rc_people) of the populations an
    earlier round had; the rows must not depend on how the CSFs were split into rounds, with
    PHQ-8 items, 0/1 and continuous per-sample losses (exact and limb paths) side by side."""
    from riskcov.evaluation.prepared_warehouse import open_warehouse
    from riskcov.warehouse import metric_tables as materialise

    (tmp_path / "preds.csv").write_text(PREDS)
    (tmp_path / "cont.csv").write_text(CONTINUOUS)
    phq8 = shared_dir / "fixtures" / "runs" / "public_continuous.json"
    for path in (tmp_path / "preds.csv", tmp_path / "cont.csv", phq8):
        assert run_cli(["ingest", path, "--warehouse", warehouse_path, "--no-publish"]).exit_code == 0
    tables = {
        "metrics": "SELECT * FROM metrics ORDER BY experiment_id, csf, loss",
        "rc_points": "SELECT * FROM rc_points ORDER BY experiment_id, csf, loss, replicate, plateau",
    }

    def refreshed() -> dict[str, list[tuple[object, ...]]]:
        with open_warehouse(warehouse_path) as con:
            con.execute("BEGIN")
            materialise.refresh(con)
            out = {name: con.execute(query).fetchall() for name, query in tables.items()}
            # rc_points has no key since migration 0008: each point is written once
            out["repeated points"] = con.execute(
                "SELECT count(*) - count(DISTINCT (experiment_id, csf, loss, replicate, plateau)) "
                "FROM rc_points"
            ).fetchall()
            con.execute("ROLLBACK")
        return out

    whole = refreshed()
    monkeypatch.setattr(materialise, "ROWS_PER_CHUNK", 1)
    assert refreshed() == whole
    # and each CSF's items scored by a join of their own (ITEM_CELLS_PER_JOIN), not all at once
    monkeypatch.setattr(materialise, "ITEM_CELLS_PER_JOIN", 1)
    assert refreshed() == whole
    assert whole["repeated points"] == [(0,)]
    assert len(whole["metrics"]) == 13 * 2 + 1 + 2  # PHQ-8: 13 CSFs x 2 losses; 1 + 2 per-sample
    assert {r[8] for r in whole["metrics"] if r[2] == 2} == {"confidence", "other"}  # csf of cont.csv


def test_the_metric_tables_are_computed_under_a_bounded_memory_limit_then_restored(
    warehouse_path, tmp_path, monkeypatch
):
    """DuckDB's memory_limit is the metric tables' bound while they are computed (a
    100,000-participant ingest peaked at 3.1 GiB without it) and the instance's own limit
    again afterwards, also when the computation fails. The bound is what the rest of the
    process leaves of PROCESS_MEMORY_BYTES, and at least MEMORY_FLOOR_BYTES."""
    import duckdb
    import pytest

    from riskcov.errors import InputError
    from riskcov.evaluation.prepared_warehouse import open_warehouse
    from riskcov.ingest import ingest_file
    from riskcov.warehouse import duckdb_helpers
    from riskcov.warehouse import metric_tables as materialise

    def as_read_back(limit_bytes: int) -> str:
        con = duckdb.connect()
        con.execute(f"SET memory_limit = '{limit_bytes}B'")
        return con.execute("SELECT current_setting('memory_limit')").fetchone()[0]

    seen: list[str] = []
    real = materialise._metrics

    def spy(con, ids):
        seen.append(con.execute("SELECT current_setting('memory_limit')").fetchone()[0])
        if len(seen) == 3:
            raise InputError("stop here")
        real(con, ids)

    monkeypatch.setattr(materialise, "_metrics", spy)
    limit = "SELECT current_setting('memory_limit')"
    for name, text in (("preds.csv", PREDS), ("other.csv", OTHER), ("third.csv", OTHER + "d,0.1,1\n")):
        (tmp_path / name).write_text(text)
    with open_warehouse(warehouse_path) as con:
        before = con.execute(limit).fetchone()[0]
        # a process holding far more than the target outside DuckDB: the floor
        monkeypatch.setattr(duckdb_helpers, "resident_bytes", lambda: 2**50)
        assert ingest_file(con, tmp_path / "preds.csv").status == "ingested"
        assert con.execute(limit).fetchone()[0] == before
        # nothing outside DuckDB: the whole target
        monkeypatch.setattr(duckdb_helpers, "resident_bytes", lambda: 0)
        assert ingest_file(con, tmp_path / "other.csv").status == "ingested"
        assert con.execute(limit).fetchone()[0] == before
        with pytest.raises(InputError, match="stop here"):
            ingest_file(con, tmp_path / "third.csv")
        assert con.execute(limit).fetchone()[0] == before
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (2,)
    floor = as_read_back(materialise.MEMORY_FLOOR_BYTES)
    whole = as_read_back(materialise.PROCESS_MEMORY_BYTES)
    assert seen == [floor, whole, whole]
    assert before not in (floor, whole)


def test_the_metrics_read_every_rounds_points_in_the_order_sorting_them_would_give(
    warehouse_path, run_cli, monkeypatch, shared_dir
):
    """The metrics read rc_points back through a join (metric_tables.ALL_POINTS_SQL) and sum each
    block in the order the rows come: a join that did not keep rc_points' order would change
    their last bits. The rows must equal, bit for bit, those computed from the same points
    sorted explicitly, on files whose blocks have thousands of points with 0/1 and continuous
    losses (where the order of a float sum shows)."""
    from riskcov.evaluation.prepared_warehouse import open_warehouse
    from riskcov.warehouse import metric_tables as materialise

    for path in (
        Path(__file__).resolve().parents[2] / "examples" / "selective_samples.parquet",
        shared_dir / "fixtures" / "runs" / "public_continuous.json",
    ):
        assert run_cli(["ingest", path, "--warehouse", warehouse_path, "--no-publish"]).exit_code == 0

    def refreshed() -> list[tuple[object, ...]]:
        with open_warehouse(warehouse_path) as con:
            con.execute("BEGIN")
            materialise.refresh(con)
            rows = con.execute("SELECT * FROM metrics ORDER BY experiment_id, csf, loss").fetchall()
            con.execute("ROLLBACK")
        return rows

    joined = refreshed()
    sorted_sql = materialise.ALL_POINTS_SQL + " ORDER BY k.series, p.replicate, p.plateau"
    monkeypatch.setattr(materialise, "ALL_POINTS_SQL", sorted_sql)
    assert refreshed() == joined
    assert len(joined) > 26  # the example's experiments beside the fixture's 13 CSFs x 2 losses


def test_every_csf_from_one_join_gives_the_rows_of_v_csf_confidences_bit_for_bit(
    warehouse_path, run_cli, shared_dir, tmp_path
):
    """internal.v_csf_columns (one join, a column pair per CSF) read back as rows by csf_columns.rows_sql
    equals v_csf_confidences (a join per CSF) for every base CSF and a user CSF: confidences
    compared by their bits, problems as text (missing signals, nulls, a user CSF's own)."""
    from riskcov.evaluation.prepared_warehouse import open_warehouse
    from riskcov.warehouse.csf_columns import COLUMNS_VIEW, rows_sql

    runs = shared_dir / "fixtures" / "runs"
    worked = json.loads((runs / "worked_example.json").read_text())
    signals = worked["experiments"][0]["results"]["results"][0]["item_signals"]
    signals["NoInterest"]["token_msp"] = None  # token_msp is null
    del signals["Depressed"]["token_pe"]  # token_pe is missing
    signals["Sleep"]["token_pe"] = -1.0  # token_pe: 1 / (1 + x) is infinite
    (tmp_path / "worked.json").write_text(json.dumps(worked))
    for path in (runs / "public30.json", tmp_path / "worked.json"):
        assert run_cli(["ingest", path, "--warehouse", warehouse_path]).exit_code == 0
    expr = "0.7 * token_msp + 0.3 * coalesce(retrieval_similarity_mean, 0)"
    assert run_cli(["csf", "add", "mine", expr, "--warehouse", warehouse_path]).exit_code == 0
    order = " ORDER BY csf, experiment_id, participant_id, item_index"
    columns = "experiment_id, csf, participant_id, item_index, confidence, abstained, loss_raw, problem"

    def bits(rows: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
        return [tuple(v.hex() if isinstance(v, float) else v for v in r) for r in rows]

    with open_warehouse(warehouse_path, read_only=True) as con:
        listed = con.execute("SELECT DISTINCT csf FROM v_csf_confidences ORDER BY csf").fetchall()
        csfs = [str(r[0]) for r in listed]
        expected = con.execute(f"SELECT {columns} FROM v_csf_confidences{order}").fetchall()
        got = con.execute(f"SELECT {columns} FROM ({rows_sql(COLUMNS_VIEW, csfs)}){order}").fetchall()
    assert "mine" in csfs and len(csfs) == 14
    assert len(expected) == 14 * (456 + 8)
    problems = {(r[1], r[7]) for r in expected if r[7] is not None}
    assert {("token_msp", "token_msp is null"), ("token_pe", "token_pe is missing")} <= problems
    assert ("token_pe", "the confidence is inf, not a finite number") in problems
    assert bits(got) == bits(expected)
