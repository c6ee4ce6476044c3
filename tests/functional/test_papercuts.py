"""First-use papercuts (issue "BI without lock fights", item 10, and item 6): the group's
--warehouse, read-only commands that create nothing, artifact names that never collide,
--output - for stdout."""

from __future__ import annotations

import json

WORKED = "sample_id,confidence,correct\n1,0.9,1\n2,0.7,1\n3,0.7,0\n4,0.5,0\n5,0.2,1\n"


def _ingest(run_cli, tmp_path, wh):
    src = tmp_path / "worked.csv"
    src.write_text(WORKED)
    r = run_cli(["ingest", src, "--warehouse", wh])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr


def test_warehouse_before_the_subcommand_works_like_after_it(tmp_path, run_cli):
    wh, other = tmp_path / "w.duckdb", tmp_path / "other.duckdb"
    _ingest(run_cli, tmp_path, wh)
    after = run_cli(["runs", "--json", "--warehouse", wh])
    before = run_cli(["--warehouse", wh, "runs", "--json"])
    assert (before.exit_code, before.stdout, before.stderr) == (0, after.stdout, "")
    assert [r["run_id"] for r in json.loads(before.stdout)] == ["worked"]
    # the command's own option wins over the group's; the group's does not outlive its call
    r = run_cli(["--warehouse", wh, "runs", "--json", "--warehouse", other])
    assert (r.exit_code, r.stdout) == (0, "[]\n")
    r = run_cli(["runs", "--json", "--warehouse", other])
    assert (r.exit_code, r.stdout) == (0, "[]\n")


def test_read_only_commands_create_no_warehouse(tmp_path, run_cli):
    wh = tmp_path / "none" / "w.duckdb"
    r = run_cli(["runs", "--warehouse", wh])
    assert (r.exit_code, r.stdout, r.stderr) == (0, f"no warehouse at {wh} yet: riskcov ingest PATH...\n", "")
    r = run_cli(["runs", "--json", "--warehouse", wh])
    assert (r.exit_code, r.stdout) == (0, "[]\n")
    r = run_cli(["export", "--warehouse", wh, "--out", tmp_path / "out"])
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr == f"error: no warehouse at {wh}: ingest a run first, or pass --warehouse\n"
    r = run_cli(["report", "--evaluation", "1", "--output", tmp_path / "r.html", "--warehouse", wh])
    assert (r.exit_code, r.stderr) == (
        1,
        f"error: no warehouse at {wh}: ingest a run first, or pass --warehouse\n",
    )
    assert not (tmp_path / "none").exists()


def _evaluate(run_cli, wh, *args):
    r = run_cli(["evaluate", "--input", "worked", "--bootstrap-resamples", "0", "--warehouse", wh, *args])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    return r


def test_default_artifacts_never_collide(tmp_path, run_cli):
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    for wh in (a, b):
        _ingest(run_cli, tmp_path, wh)
        r = _evaluate(run_cli, wh)
        assert (
            r.stdout.splitlines()[-1]
            == f"artifact: {tmp_path / 'artifacts' / (wh.stem + '_evaluation_1.json')}"
        )
    first = (tmp_path / "artifacts" / "a_evaluation_1.json").read_text()
    a.unlink()  # a warehouse made anew counts from 1 again: the old artifact stays
    _ingest(run_cli, tmp_path, a)
    r = _evaluate(run_cli, a, "--area-coverage", "0.25")
    assert r.stdout.splitlines()[-1] == f"artifact: {tmp_path / 'artifacts' / 'a_evaluation_1_2.json'}"
    assert (tmp_path / "artifacts" / "a_evaluation_1.json").read_text() == first


def test_output_dash_is_stdout(tmp_path, run_cli, monkeypatch):
    wh = tmp_path / "w.duckdb"
    _ingest(run_cli, tmp_path, wh)
    monkeypatch.chdir(tmp_path)
    r = _evaluate(run_cli, wh, "--output", "-")
    art = json.loads(r.stdout)
    assert art["confidence_variants"]["confidence"]["aurc_full"] == 0.24
    assert not (tmp_path / "-").exists()
    assert not (tmp_path / "artifacts").exists()
