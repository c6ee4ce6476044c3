"""`riskcov history` (issue "BI without lock fights", item 5): one metric of one CSF per run."""

from __future__ import annotations

import json

WORKED = "sample_id,confidence,correct\n1,0.9,1\n2,0.7,1\n3,0.7,0\n4,0.5,0\n5,0.2,1\n"


def _warehouse(run_cli, tmp_path):
    wh = tmp_path / "w.duckdb"
    for name, text in (("b_run", WORKED), ("a_run", WORKED.replace("5,0.2,1", "5,0.2,0"))):
        src = tmp_path / f"{name}.csv"
        src.write_text(text)
        assert run_cli(["ingest", src, "--warehouse", wh]).exit_code == 0
    return wh


def test_json_rows_per_run_in_order(tmp_path, run_cli):
    wh = _warehouse(run_cli, tmp_path)
    r = run_cli(["history", "--csf", "confidence", "--format", "json", "--warehouse", wh])
    assert (r.exit_code, r.stderr) == (0, "")
    rows = json.loads(r.stdout)
    # no run timestamps: ordered by run_id. a_run: every sample wrong but the first two:
    # points (0.2, 0), (0.6, 1/3), (0.8, 1/2), (1, 0.6): 0 + 1/15 + 1/12 + 0.11 = 0.26
    assert [(x["run_id"], x["method"], x["loss"]) for x in rows] == [
        ("a_run", "a_run", "given"),
        ("b_run", "b_run", "given"),
    ]
    assert rows[0]["value"] == 1 / 15 + 1 / 12 + 0.11
    assert rows[1]["value"] == 0.24


def test_csv_and_the_refusals(tmp_path, run_cli):
    wh = _warehouse(run_cli, tmp_path)
    r = run_cli(["history", "--csf", "confidence", "--metric", "cmax", "--format", "csv", "--warehouse", wh])
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout.splitlines() == [
        "run_id,run_timestamp,experiment_id,mode,method,seed,split,domain,loss,cmax",
        "a_run,,2,,a_run,0,test,id,given,1.0",
        "b_run,,1,,b_run,0,test,id,given,1.0",
    ]
    r = run_cli(["history", "--metric", "auroc", "--warehouse", wh])
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr.startswith("error: --metric auroc: choose one of cmax, aurc_full,")
    r = run_cli(["history", "--csf", "llm", "--warehouse", wh])
    assert (r.exit_code, r.stdout) == (0, "no llm metrics match; CSFs with metrics: confidence\n")
