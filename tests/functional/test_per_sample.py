"""Per-sample runs end to end (docs/formats.md): ingest a table, evaluate it with the same SQL as PHQ-8."""

from __future__ import annotations

import json

import duckdb
import pytest

WORKED = "sample_id,confidence,correct\n1,0.9,1\n2,0.7,1\n3,0.7,0\n4,0.5,0\n5,0.2,1\n"


def _artifact(run_cli, *args) -> dict:
    r = run_cli(["evaluate", *args, "--json"])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    return json.loads(r.stdout)


def test_spec_worked_example(tmp_path, run_cli):
    csv = tmp_path / "worked.csv"
    csv.write_text(WORKED)
    wh = tmp_path / "w.duckdb"
    r = run_cli(["ingest", csv, "--warehouse", wh])
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout == (
        f"ingested {csv}: run worked: 1 experiment(s), 5 samples (0 abstained), "
        "1 score column(s): confidence\n"
    )
    art = _artifact(run_cli, "--input", "worked", "--warehouse", wh, "--bootstrap-resamples", "0")
    m = art["confidence_variants"]["confidence"]
    assert art["loss"] == {"name": "given", "definition": "as given", "raw_multiplier": 1}
    assert art["population"] == {
        "participants_total": 5,
        "participants_included": 5,
        "participants_failed": 0,
        "items_total": 5,
        "items_predicted": 5,
        "cmax": 1.0,
    }
    assert {k: art["inputs"][0][k] for k in ("run_id", "method", "seed", "split", "domain")} == {
        "run_id": "worked",
        "method": "worked",
        "seed": 0,
        "split": "test",
        "domain": "id",
    }
    assert m["curve"]["coverage"] == pytest.approx([0.2, 0.6, 0.8, 1.0], abs=1e-15)
    assert m["curve"]["selective_risk"] == pytest.approx([0, 1 / 3, 1 / 2, 0.4], abs=1e-15)
    assert m["curve"]["generalized_risk"] == pytest.approx([0, 0.2, 0.4, 0.4], abs=1e-15)
    assert m["curve"]["threshold"] == [0.9, 0.7, 0.5, 0.2]
    assert m["aurc_full"] == pytest.approx(0.24, rel=1e-12)
    assert m["augrc_full"] == pytest.approx(0.18, rel=1e-12)


def test_csv_parquet_and_jsonl_give_the_same_artifact(tmp_path, run_cli):
    src = tmp_path / "src.csv"
    src.write_text(
        "sample_id,cluster,confidence_msp,confidence_energy,loss,abstained\n"
        + "".join(
            f"s{i},{i % 7},{(i * 37 % 11) / 10},{(i * 13 % 5) / 4},{(i * 7 % 4) / 4},"
            f"{'true' if i % 9 == 0 else 'false'}\n"
            for i in range(60)
        )
    )
    con = duckdb.connect()
    artifacts = []
    for fmt, suffix in (("csv", "csv"), ("parquet", "parquet"), ("json", "jsonl")):
        folder = tmp_path / suffix
        folder.mkdir()
        path = folder / f"run.{suffix}"
        con.execute(f"COPY (FROM read_csv('{src}')) TO '{path}' (FORMAT {fmt})")
        wh = folder / "w.duckdb"
        assert run_cli(["ingest", path, "--warehouse", wh]).exit_code == 0
        art = _artifact(
            run_cli,
            "--input",
            "run",
            "--warehouse",
            wh,
            "--confidence",
            "all",
            "--bootstrap-resamples",
            "50",
            "--seed",
            "3",
        )
        art.pop("created_at")
        for i in art["inputs"]:
            i.pop("sha256")
        artifacts.append(json.dumps(art, indent=2))
    assert artifacts[0] == artifacts[1] == artifacts[2]
    assert sorted(json.loads(artifacts[0])["confidence_variants"]) == ["energy", "msp"]


def test_a_bad_row_is_one_line_and_changes_nothing(tmp_path, run_cli, take_snapshot):
    wh = tmp_path / "w.duckdb"
    good = tmp_path / "good.csv"
    good.write_text(WORKED)
    assert run_cli(["ingest", good, "--warehouse", wh]).exit_code == 0
    before = take_snapshot(wh)
    bad = tmp_path / "bad.csv"
    bad.write_text(WORKED.replace("4,0.5,0", "4,0.5,2"))
    r = run_cli(["ingest", bad, "--warehouse", wh])
    assert (r.exit_code, r.stdout, r.crashed) == (1, "", False)
    assert r.stderr == f"error: {bad}: row 4, column correct: value 2 is not 0, 1, true or false\n"
    assert take_snapshot(wh) == before


def test_the_same_data_as_phq8_json_and_as_samples_gives_the_same_metrics(tmp_path, run_cli, shared_dir):
    """Each PHQ-8 item written as a sample (its participant as cluster, its abs error as loss):
    every metric and every bootstrap CI agrees, so both formats run the same SQL and draws."""
    run = shared_dir / "fixtures" / "runs" / "public30.json"
    wh = tmp_path / "w.duckdb"
    phq8 = _artifact(
        run_cli,
        "--input",
        run,
        "--mode",
        "few_shot",
        "--warehouse",
        wh,
        "--loss",
        "abs",
        "--confidence",
        "llm",
        "--bootstrap-resamples",
        "300",
        "--seed",
        "5",
    )
    samples = tmp_path / "items.parquet"
    con = duckdb.connect(str(wh))
    con.execute(f"""
        COPY (SELECT i.participant_id || '_' || i.item_index AS sample_id, i.participant_id AS cluster,
                     c.confidence AS confidence_llm, i.pred IS NULL AS abstained,
                     CAST(coalesce(abs(i.pred - i.gt), 0) AS DOUBLE) AS loss
              FROM items i JOIN experiments e USING (experiment_id)
              JOIN v_csf_confidences c USING (experiment_id, participant_id, item_index)
              WHERE e.mode = 'few_shot' AND c.csf = 'llm'
              ORDER BY i.participant_id, i.item_index) TO '{samples}' (FORMAT parquet)""")
    con.close()
    assert run_cli(["ingest", samples, "--warehouse", wh]).exit_code == 0
    per_sample = _artifact(
        run_cli,
        "--input",
        "items",
        "--warehouse",
        wh,
        "--confidence",
        "llm",
        "--bootstrap-resamples",
        "300",
        "--seed",
        "5",
    )
    a, b = phq8["confidence_variants"]["llm"], per_sample["confidence_variants"]["llm"]
    for key in (
        "cmax",
        "aurc_full",
        "augrc_full",
        "aurc_optimal",
        "augrc_optimal",
        "eaurc",
        "aurc_achievable",
    ):
        assert b[key] == pytest.approx(a[key], rel=1e-12, abs=1e-15), key
    assert b["curve"] == a["curve"]
    assert b["mae_at_coverage"] == a["mae_at_coverage"]
    assert b["bootstrap"]["ci95"] == a["bootstrap"]["ci95"]
    assert per_sample["population"]["items_total"] == phq8["population"]["items_total"]


def test_an_ambiguous_run_of_24_experiments_is_one_short_line_of_options_per_flag(tmp_path, run_cli):
    wh = tmp_path / "w.duckdb"
    runs = tmp_path / "grid.csv"
    grid = [(m, s, sp, d) for m in "ab" for s in range(3) for sp in ("cal", "test") for d in ("id", "ood")]
    runs.write_text(
        "sample_id,confidence,correct,method,seed,split,domain\n"
        + "".join(f"x,0.5,1,{m},{s},{sp},{d}\n" for m, s, sp, d in grid)
    )
    assert run_cli(["ingest", runs, "--warehouse", wh]).exit_code == 0
    ambiguous = run_cli(["evaluate", "--input", "grid", "--split", "test", "--warehouse", wh])
    assert (ambiguous.exit_code, ambiguous.stderr) == (
        2,
        "error: --input grid: run grid has 12 experiments; choose one with --method (a, b), "
        "--experiment-seed (0, 1, 2), --domain (id, ood)\n",
    )


def test_an_ambiguous_per_sample_input_lists_the_experiments_by_the_flags_that_choose_them(tmp_path, run_cli):
    """evaluate's experiment seed is --experiment-seed (--seed is the bootstrap's): the listing
    and the error that points at a missing seed use the flag a user can paste back."""
    wh = tmp_path / "w.duckdb"
    runs = tmp_path / "runs.csv"
    runs.write_text("sample_id,confidence,correct,method,seed\na,0.9,1,m,1\na,0.8,0,m,2\nb,0.4,1,m,2\n")
    assert run_cli(["ingest", runs, "--warehouse", wh]).exit_code == 0
    listed = "--method (m), --experiment-seed (1, 2), --split (test), --domain (id)"
    ambiguous = run_cli(["evaluate", "--input", "runs", "--warehouse", wh])
    assert (ambiguous.exit_code, ambiguous.stderr) == (
        2,
        "error: --input runs: run runs has 2 experiments; choose one with --experiment-seed (1, 2)\n",
    )
    missing = run_cli(["evaluate", "--input", "runs", "--experiment-seed", "3", "--warehouse", wh])
    assert (missing.exit_code, missing.stderr) == (
        1,
        f"error: --input runs: run runs has no experiment with seed 3 (available: {listed})\n",
    )
    chosen = run_cli(
        ["evaluate", "--input", "runs", "--experiment-seed", "2", "--seed", "7", "--json", "--warehouse", wh]
    )
    assert chosen.exit_code == 0
    assert [i["seed"] for i in json.loads(chosen.stdout)["inputs"]] == [2]
