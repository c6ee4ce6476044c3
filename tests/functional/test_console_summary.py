"""The console summary (issue "BI without lock fights", item 9): MAE@coverage and
Coverage@Risk rows, one ranking table for many CSFs, aliases shown once with a note."""

from __future__ import annotations

ROWS = [(0.9, 0.8, 1), (0.7, 0.6, 1), (0.7, 0.9, 0), (0.5, 0.1, 0), (0.2, 0.3, 1)]


def _warehouse(run_cli, tmp_path):
    src = tmp_path / "run.csv"
    src.write_text(
        "sample_id,confidence_a,confidence_b,confidence_same,confidence_c,correct\n"
        + "".join(f"{i},{a},{b},{a},{1 - a},{ok}\n" for i, (a, b, ok) in enumerate(ROWS))
    )
    wh = tmp_path / "w.duckdb"
    assert run_cli(["ingest", src, "--warehouse", wh]).exit_code == 0
    return wh


def test_one_csf_shows_mae_at_coverage_and_coverage_at_risk(tmp_path, run_cli):
    wh = _warehouse(run_cli, tmp_path)
    r = run_cli(
        ["evaluate", "--input", "run", "--confidence", "a", "--bootstrap-resamples", "0", "--warehouse", wh]
    )
    assert (r.exit_code, r.stderr) == (0, "")
    lines = [line.strip("│ ").split("│") for line in r.stdout.splitlines() if line.startswith("│")]
    cells = {row[0].strip(): row[1].strip() for row in lines}
    # the docs/formats.md worked example: AURC 0.24, MAE@0.50 = 1/3 (coverage 0.6), Coverage@Risk 0.10 = 0.2
    assert cells["AURC"] == "0.2400"
    assert cells["MAE@0.50"] == "0.3333"
    assert cells["MAE@0.90"] == "0.4000"
    assert cells["Coverage@Risk 0.10"] == "0.2000"
    assert r.stdout.splitlines()[0] == (
        "loss given, estimator plateau-trapezoid, C = 0.5: 5 clusters included, 0 failed, 5 samples"
    )


def test_many_csfs_are_one_ranking_with_aliases_shown_once(tmp_path, run_cli):
    wh = _warehouse(run_cli, tmp_path)
    r = run_cli(
        ["evaluate", "--input", "run", "--confidence", "all", "--bootstrap-resamples", "0", "--warehouse", wh]
    )
    assert (r.exit_code, r.stderr) == (0, "")
    out = r.stdout.splitlines()
    assert out[1].strip() == "CSFs by AURC"
    rows = [[c.strip() for c in line.strip("│").split("│")] for line in out if line.startswith("│")]
    # a: the worked example, AURC 0.24. c = 1 - a: points (0.2, 0), (0.4, 1/2), (0.8, 1/2),
    # (1, 0.4): 0 + 0.05 + 0.2 + 0.09 = 0.34. b: losses 1, 0, 0, 0, 1 in confidence order, points
    # (0.2, 1), (0.4, 1/2), (0.6, 1/3), (0.8, 1/4), (1, 0.4): 0.2 + 0.15 + 1/12 + 7/120 + 0.065.
    # `same` repeats a: only a note.
    assert [row[:3] for row in rows] == [["1", "a", "0.2400"], ["2", "c", "0.3400"], ["3", "b", "0.5567"]]
    assert "same: the same numbers as a (shown once)" in out
