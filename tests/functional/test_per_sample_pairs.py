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


def _tables(path) -> dict[str, int]:
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in ("evaluations", "runs")}
    finally:
        con.close()


def test_an_empty_overlap_is_refused_not_evaluated_as_zero(tmp_path, run_cli):
    """--intersection-only of disjoint clusters stored an evaluation of 0 clusters: AURC 0 [0, 0]
    on both sides and a delta of 0 [0, 0]."""
    _ingest(run_cli, tmp_path, "left", "sample_id,cluster,confidence,correct\n1,a,0.9,1\n2,b,0.8,0\n")
    _ingest(run_cli, tmp_path, "right", "sample_id,cluster,confidence,correct\n1,c,0.9,0\n2,d,0.8,1\n")
    wh = tmp_path / "w.duckdb"
    args = ["evaluate", "--input", "left", "--input", "right", "--intersection-only", "--warehouse", wh]
    r = run_cli([*args, "--bootstrap-resamples", "10", "--output", tmp_path / "a.json"])
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr == (
        "error: the two inputs share no sample cluster successful in both (0 in both inputs, "
        "2 only in the left, 2 only in the right): nothing to compare\n"
    )
    assert _tables(wh) == {"evaluations": 0, "runs": 2}
    assert not (tmp_path / "a.json").exists()
