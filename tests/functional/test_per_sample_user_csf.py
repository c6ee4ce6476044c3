"""User CSFs on per-sample runs: `csf add NAME EXPR` over score columns by CSF name and `prob`,
the allow-list of PHQ-8 CSFs, `csf list` naming the runs each applies to, and evaluation by
name, under `all` and as `sql:EXPR`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest


def _table(path: Path, with_mix: bool = False) -> Path:
    """40 samples with confidence, msp and prob; with_mix adds confidence_mix holding
    0.5 * confidence + 0.5 * msp computed here (Python's IEEE doubles, DuckDB's order)."""
    rng = np.random.default_rng(4)
    header = "sample_id,confidence,confidence_msp,prob,correct" + (",confidence_mix" if with_mix else "")
    lines = [header]
    for i in range(40):
        c, m, p = (float(x) for x in rng.random(3))
        row = f"{i},{c!r},{m!r},{p!r},{int(rng.random() < c)}"
        lines.append(row + (f",{0.5 * c + 0.5 * m!r}" if with_mix else ""))
    path.write_text("\n".join(lines) + "\n")
    return path


def _evaluate(run_cli: Any, wh: Path, out: Path, *args: str) -> dict[str, Any]:
    done = run_cli(["evaluate", *args, "--bootstrap-resamples", "0", "--output", out, "--warehouse", wh])
    assert done.exit_code == 0, done.stderr
    art: dict[str, Any] = json.loads(out.read_text())
    return art


def test_a_per_sample_csf_is_the_column_it_computes(tmp_path: Path, run_cli: Any) -> None:
    wh = tmp_path / "w.duckdb"
    assert run_cli(["ingest", _table(tmp_path / "preds.csv"), "--warehouse", wh]).exit_code == 0
    added = run_cli(["csf", "add", "mix", "0.5 * confidence + 0.5 * msp", "--warehouse", wh])
    assert (added.exit_code, added.stdout) == (
        0,
        "added csf mix: ((CAST(0.5 AS DOUBLE) * s.confidence) + (CAST(0.5 AS DOUBLE) * s.msp))\n",
    )
    assert run_cli(["csf", "add", "tm", "token_msp * 2", "--warehouse", wh]).exit_code == 0
    listed = run_cli(["csf", "list", "--warehouse", wh]).stdout.splitlines()
    assert [(line.split("\t")[0], line.split("\t")[3]) for line in listed] == [
        ("mix", "per-sample runs"),
        ("tm", "PHQ-8, per-sample runs"),
    ]
    got = _evaluate(run_cli, wh, tmp_path / "a.json", "--input", "preds", "--confidence", "all")
    # tm's token_msp is not a score column of this run: not offered under all
    assert sorted(got["confidence_variants"]) == ["confidence", "mix", "msp"]
    # the oracle: the same numbers as a column of the file, computed in Python (a warehouse of its
    # own: beside the stored CSF mix, a column confidence_mix is refused)
    other = tmp_path / "oracle.duckdb"
    assert run_cli(["ingest", _table(tmp_path / "oracle.csv", True), "--warehouse", other]).exit_code == 0
    want = _evaluate(run_cli, other, tmp_path / "b.json", "--input", "oracle", "--confidence", "mix")
    named = _evaluate(run_cli, wh, tmp_path / "c.json", "--input", "preds", "--confidence", "mix")
    sql = "sql:0.5 * confidence + 0.5 * msp"
    inline = _evaluate(run_cli, wh, tmp_path / "d.json", "--input", "preds", "--confidence", sql)
    expected = want["confidence_variants"]["mix"]
    assert named["confidence_variants"]["mix"] == expected
    assert got["confidence_variants"]["mix"] == expected
    assert inline["confidence_variants"][sql] == expected


def test_the_allow_list_and_a_missing_column(tmp_path: Path, run_cli: Any) -> None:
    wh = tmp_path / "w.duckdb"
    assert run_cli(["ingest", _table(tmp_path / "preds.csv"), "--warehouse", wh]).exit_code == 0
    refused = run_cli(["csf", "add", "bad", "read_csv('x') + confidence", "--warehouse", wh])
    assert refused.exit_code == 2 and refused.stderr.startswith(
        "error: csf bad: function read_csv is not allowed"
    )
    assert run_cli(["csf", "add", "en", "0 - energy", "--warehouse", wh]).exit_code == 0
    missing = run_cli(["evaluate", "--input", "preds", "--confidence", "en", "--warehouse", wh])
    assert (missing.exit_code, missing.stderr) == (
        1,
        "error: confidence en cannot be computed: run preds, experiment method preds, seed 0, split test, "
        "domain id, sample 0: energy is null or not a score column of the run (40 predicted sample(s) "
        "affected)\n",
    )


def test_a_stored_csf_named_like_a_score_column_is_refused(
    tmp_path: Path, run_cli: Any, take_snapshot
) -> None:
    # evaluate reads a run's score column under its CSF name before a stored CSF of that name:
    # `msp` stored as 1 - confidence was silently never evaluated on this run
    wh = tmp_path / "w.duckdb"
    assert run_cli(["ingest", _table(tmp_path / "preds.csv"), "--warehouse", wh]).exit_code == 0
    before = take_snapshot(wh)
    refused = run_cli(["csf", "add", "msp", "1 - confidence", "--warehouse", wh])
    assert (refused.exit_code, refused.stdout, refused.crashed) == (2, "", False)
    assert refused.stderr == (
        "error: csf name msp: msp is a score column of per-sample run preds, which would be evaluated "
        "under that name instead; choose another name\n"
    )
    assert take_snapshot(wh) == before


@pytest.mark.parametrize("how", [["ingest"], ["evaluate", "--bootstrap-resamples", "0", "--input"]])
def test_a_score_column_named_like_a_stored_csf_is_refused(
    how: list[str], tmp_path: Path, run_cli: Any, take_snapshot: Any
) -> None:
    """The same clash the other way round: `mix` stored as 1 - confidence, then a file with
    confidence_mix was ingested, and evaluate (`all`, `--confidence mix`) and v_metrics gave the
    column's numbers under the stored CSF's name."""
    wh = tmp_path / "w.duckdb"
    assert run_cli(["csf", "add", "mix", "1 - confidence", "--warehouse", wh]).exit_code == 0
    before = take_snapshot(wh)
    path = _table(tmp_path / "preds.csv", with_mix=True)
    refused = run_cli([*how, path, "--warehouse", wh])
    assert (refused.exit_code, refused.stdout, refused.crashed) == (1, "", False)
    assert refused.stderr == (
        f"error: {path}: column confidence_mix: mix is a stored CSF (riskcov csf list), which this "
        "column would replace in the run's evaluations; rename the column, or remove the CSF first "
        "(riskcov csf remove mix)\n"
    )
    assert take_snapshot(wh) == before


def test_a_key_of_the_sample_row_is_no_score_column(tmp_path: Path, run_cli: Any) -> None:
    wh = tmp_path / "w.duckdb"
    assert run_cli(["ingest", _table(tmp_path / "preds.csv"), "--warehouse", wh]).exit_code == 0
    for expr in ("sample_index", "1 - sample_id"):
        refused = run_cli(["evaluate", "--input", "preds", "--confidence", f"sql:{expr}", "--warehouse", wh])
        name = expr.split()[-1]
        assert (refused.exit_code, refused.stdout, refused.stderr) == (
            2,
            "",
            f"error: sql:{expr}: column {name} is not a score column: a per-sample CSF reads score "
            "columns by CSF name (msp for confidence_msp) and prob\n",
        )


def test_csf_add_over_a_key_of_the_sample_row_says_both_reasons(tmp_path: Path, run_cli: Any) -> None:
    """Neither a signal of PHQ-8 runs nor a score column of per-sample runs: the message says
    both, not only the list of signals (which a per-sample user would not be looking for)."""
    wh = tmp_path / "w.duckdb"
    assert run_cli(["ingest", _table(tmp_path / "preds.csv"), "--warehouse", wh]).exit_code == 0
    refused = run_cli(["csf", "add", "x", "1 - sample_index", "--warehouse", wh])
    assert (refused.exit_code, refused.stdout, refused.crashed) == (2, "", False)
    assert refused.stderr.startswith(
        "error: csf x: column sample_index is not a signal column of item_signals ("
    )
    assert refused.stderr.endswith(
        "; as a CSF of per-sample runs: column sample_index is not a score column: a per-sample CSF "
        "reads score columns by CSF name (msp for confidence_msp) and prob\n"
    )
    assert refused.stderr.count("\n") == 1
