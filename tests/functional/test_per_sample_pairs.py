"""Paired per-sample comparisons match clusters by name, text or integer (docs/metrics.md,
docs/formats.md)."""

from __future__ import annotations

import json


def _ingest(run_cli, tmp_path, name: str, text: str) -> None:
    src = tmp_path / f"{name}.csv"
    src.write_text(text)
    r = run_cli(["ingest", src, "--warehouse", tmp_path / "w.duckdb"])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr


def test_text_clusters_pair_by_name_not_by_rank(tmp_path, run_cli):
    # left has clusters a, b; right has a, c: the first and second cluster differ by name
    _ingest(run_cli, tmp_path, "left", "sample_id,cluster,confidence,correct\n1,a,0.9,1\n2,b,0.8,0\n")
    _ingest(run_cli, tmp_path, "right", "sample_id,cluster,confidence,correct\n1,a,0.9,0\n2,c,0.8,1\n")
    args = ["evaluate", "--input", "left", "--input", "right", "--warehouse", tmp_path / "w.duckdb"]
    r = run_cli([*args, "--bootstrap-resamples", "0"])
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr == (
        "error: sample clusters differ (1 only in the left input, 1 only in the right); "
        "pass --intersection-only to compare the overlap\n"
    )
    r = run_cli([*args, "--bootstrap-resamples", "0", "--intersection-only", "--json"])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    art = json.loads(r.stdout)
    assert art["comparison"]["participants_overlap_total"] == 1
    # only cluster a is compared: left is correct there (AURC 0), right is wrong (AURC 1)
    m = art["confidence_variants"]["confidence"]
    assert (m["input_0"]["aurc_full"], m["input_1"]["aurc_full"]) == (0.0, 1.0)
    assert art["comparison"]["deltas"]["confidence"]["aurc_full"]["delta"] == 1.0
