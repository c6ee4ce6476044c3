"""`riskcov plot`: the missing-extra line, usage errors, byte-reproducible SVG from an artifact, a
PNG with bootstrap bands from a run file that leaves the warehouse as it was."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "example_run.json"
MISSING = "error: riskcov plot needs matplotlib: pip install 'riskcov[plot]'\n"


@pytest.fixture
def no_matplotlib(monkeypatch):
    """`import matplotlib` raises ImportError, as where the extra is not installed."""
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)


def test_missing_matplotlib_is_one_line_and_exit_1(no_matplotlib, paired_evaluation, tmp_path, run_cli):
    _, artifact, _ = paired_evaluation
    result = run_cli(["plot", "--from-artifact", artifact, "--output", tmp_path / "rc.svg"])
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", MISSING)
    # checked before the warehouse is opened: nothing is created or evaluated
    warehouse = tmp_path / "w.duckdb"
    result = run_cli(["plot", "--input", EXAMPLE, "--output", tmp_path / "rc.png", "--warehouse", warehouse])
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", MISSING)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--input", "x", "--output", "rc.pdf"], "--output rc.pdf: give a .png or .svg file name"),
        (["--output", "rc.svg"], "give --input RUN (once, or twice to compare) or --from-artifact A.json"),
        (
            ["--from-artifact", "a.json", "--input", "x", "--output", "rc.svg"],
            "give --input or --from-artifact, not both",
        ),
        (
            ["--from-artifact", "a.json", "--ci", "--output", "rc.svg"],
            "--ci needs --input: an artifact holds no replicate curves",
        ),
        (
            ["--input", "x", "--ci", "--estimator", "item-step", "--output", "rc.svg"],
            "--ci: bootstrap bands need --estimator plateau-trapezoid, not item-step",
        ),
        (
            ["--input", "x", "--ci", "--bootstrap-resamples", "1", "--output", "rc.svg"],
            "--ci needs --bootstrap-resamples >= 2, not 1",
        ),
        (
            ["--input", "x", "--estimator", "nope", "--output", "rc.svg"],
            "--estimator nope: choose one of plateau-trapezoid, item-step, item-trapezoid",
        ),
    ],
)
def test_usage_errors_exit_2(args, message, tmp_path, run_cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_cli(["plot", *args, "--warehouse", tmp_path / "w.duckdb"])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"error: {message}\n")
    assert not (tmp_path / "w.duckdb").exists()


def test_not_an_artifact_exit_1(tmp_path, run_cli):
    pytest.importorskip("matplotlib")
    bad = tmp_path / "a.json"
    bad.write_text('{"schema_version": "2"}')
    result = run_cli(["plot", "--from-artifact", bad, "--output", tmp_path / "rc.svg"])
    assert (result.exit_code, result.stderr) == (
        1,
        f'error: {bad}: not a riskcov artifact (no schema_version "1")\n',
    )


def test_svg_from_an_artifact_is_reproducible_and_labelled(paired_evaluation, tmp_path, run_cli):
    pytest.importorskip("matplotlib")
    _, artifact, art = paired_evaluation
    outputs = [tmp_path / "a.svg", tmp_path / "b.svg"]
    for out in outputs:
        result = run_cli(["plot", "--from-artifact", artifact, "--output", out])
        assert (result.exit_code, result.stdout, result.stderr) == (0, f"wrote {out}\n", "")
    assert outputs[0].read_bytes() == outputs[1].read_bytes()
    svg = outputs[0].read_text()
    assert svg.startswith("<?xml") and "<dc:date>" not in svg
    # llm and total_evidence are one formula: one line per input, named by both
    assert art["confidence_variants"]["llm"] == art["confidence_variants"]["total_evidence"]
    for k, mode in enumerate(("zero_shot", "few_shot")):
        cmax = art["confidence_variants"]["llm"][f"input_{k}"]["cmax"]
        assert svg.count(f"llm · {mode} = total_evidence · {mode} (Cmax {cmax:.3f})") == 1
        assert svg.count(f"{mode} (Cmax") == 1
    assert "selective risk vs coverage" in svg and "generalized risk vs coverage" in svg


def test_png_with_bands_from_a_run_file_stores_nothing(tmp_path, run_cli, sql):
    pytest.importorskip("matplotlib")
    warehouse, out = tmp_path / "w.duckdb", tmp_path / "pics" / "rc.png"
    args = ["plot", "--input", EXAMPLE, "--mode", "zero_shot", "--mode", "few_shot", "--confidence", "llm"]
    result = run_cli(
        [*args, "--ci", "--bootstrap-resamples", "30", "--output", out, "--warehouse", warehouse]
    )
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"wrote {out}\n", "")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the run was ingested on the fly inside a transaction that was rolled back
    assert sql(warehouse, "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM evaluations)") == [
        (0, 0)
    ]


def test_bad_input_is_the_evaluate_error(tmp_path, run_cli):
    pytest.importorskip("matplotlib")
    result = run_cli(
        [
            "plot",
            "--input",
            "no-such-run",
            "--output",
            tmp_path / "rc.svg",
            "--warehouse",
            tmp_path / "w.duckdb",
        ]
    )
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        "error: --input no-such-run: no such file, and no run with that run_id in the warehouse\n",
    )
    assert not (tmp_path / "rc.svg").exists()


def test_item_estimators_plot_without_bands(tmp_path, run_cli):
    pytest.importorskip("matplotlib")
    out = tmp_path / "rc.svg"
    args = ["plot", "--input", EXAMPLE, "--mode", "few_shot", "--estimator", "item-step", "--output", out]
    result = run_cli([*args, "--warehouse", tmp_path / "w.duckdb"])
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"wrote {out}\n", "")
    assert "(item-step)" in out.read_text()
