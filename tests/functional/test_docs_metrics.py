"""docs/metrics.md's worked example is what riskcov computes: its CSV and command run, and
every row of the page's result table matches the artifact to the digits the page gives."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
PAGE = (REPO_ROOT / "docs" / "metrics.md").read_text()
ROW = re.compile(r"^\| [^|]+ \| `([a-z0-9_.]+)` \| (-?[0-9.]+) \|$", re.M)


def _lookup(artifact: dict[str, Any], key: str) -> Any:
    if key.startswith("calibration."):
        node: Any = artifact["inputs"][0]["calibration"]
        key = key.removeprefix("calibration.")
    else:
        node = artifact["confidence_variants"]["confidence"]
    # keys such as mae_at_coverage.0.50.value: a grid key holds a dot of its own
    parts = re.findall(r"\d\.\d\d|[a-z_]+", key)
    for part in parts:
        node = node[part]
    return node


def _evaluate(run_cli, tmp_path: Path, extra: list[str]) -> dict[str, Any]:
    (csv,) = re.findall(r"```csv\n(.*?)```", PAGE, re.S)
    (tmp_path / "ex.csv").write_text(csv)
    (command,) = [line for line in re.findall(r"```bash\n(.*?)```", PAGE, re.S) if "ex.csv" in line]
    args = shlex.split(command.strip())[1:]
    args = [str(tmp_path / a) if a in ("ex.csv", "ex.json") else a for a in args]
    for flag, value in zip(extra[::2], extra[1::2], strict=True):  # in place of the page's own
        if flag in args:
            args[args.index(flag) + 1] = value
        else:
            args += [flag, value]
    result = run_cli([*args, "--warehouse", tmp_path / "w.duckdb"])
    assert result.exit_code == 0, result.stderr
    return json.loads((tmp_path / "ex.json").read_text())


def test_every_documented_value_is_what_riskcov_reports(run_cli, tmp_path):
    artifact = _evaluate(run_cli, tmp_path, [])
    rows = ROW.findall(PAGE)
    assert len(rows) == 25
    for key, text in rows:
        digits = len(text.partition(".")[2])
        assert round(_lookup(artifact, key), digits) == pytest.approx(float(text), abs=1e-12), key


def _documented_estimators() -> dict[str, dict[str, float]]:
    """`With `--estimator item-step`, `aurc_full` is 0.2466667 and ...; with ...` as a dict."""
    (sentence,) = re.findall(r"With `--estimator .*?\.\n\n", PAGE, re.S)
    found: dict[str, dict[str, float]] = {}
    for part in re.split(r";\s+with\s+", sentence):
        (estimator,) = re.findall(r"`--estimator ([a-z-]+)`", part)
        found[estimator] = {k: float(v) for k, v in re.findall(r"`([a-z_]+)`(?: is)? ([0-9.]*[0-9])", part)}
    return found


def test_documented_estimator_values(run_cli, tmp_path):
    documented = _documented_estimators()
    assert sorted(documented) == ["item-step", "item-trapezoid"]
    for estimator, values in documented.items():
        artifact = _evaluate(run_cli, tmp_path, ["--estimator", estimator])
        for key, value in values.items():
            assert round(artifact["confidence_variants"]["confidence"][key], 7) == value, (estimator, key)


MINUS = "\N{MINUS SIGN}"  # the page writes negative numbers with it


def _numbers(text: str) -> list[float]:
    text = text.replace(MINUS, "-")
    return [float(x) for x in re.findall(r"[+-]?\d+\.\d+|(?<=\[)0(?=,)", text)]


def test_the_documented_bootstrap_interval(run_cli, tmp_path):
    sentence = re.sub(r"\s+", " ", PAGE).split("Over B = 1000 replicates")[1].split(":")[0]
    artifact = _evaluate(run_cli, tmp_path, ["--bootstrap-resamples", "1000"])
    ci = artifact["confidence_variants"]["confidence"]["bootstrap"]["ci95"]["aurc_full"]
    assert [round(x, 2) for x in ci] == _numbers(sentence) == [0.0, 0.98]


def test_the_documented_paired_example(run_cli, tmp_path):
    sentence = re.sub(r"\s+", " ", PAGE).split("2000 resamples): ")[1].split(", so the data")[0]
    left, right, delta = (_numbers(part) for part in re.split(r"; the delta is|, few-shot", sentence))
    example = str(REPO_ROOT / "examples" / "example_run.json")
    out = tmp_path / "paired.json"
    paired = ["--input", example, "--mode", "zero_shot", "--input", example, "--mode", "few_shot"]
    result = run_cli(
        ["evaluate", *paired, "--bootstrap-resamples", "2000", "--output", out, "--warehouse", tmp_path / "w"]
    )
    assert result.exit_code == 0, result.stderr
    artifact = json.loads(out.read_text())
    for side, documented in zip(("input_0", "input_1"), (left, right), strict=True):
        m = artifact["confidence_variants"]["llm"][side]
        got = [m["aurc_full"], *m["bootstrap"]["ci95"]["aurc_full"]]
        assert [round(x, 4) for x in got] == documented, side
    d = artifact["comparison"]["deltas"]["llm"]["aurc_full"]
    assert [round(x, 4) for x in (d["delta"], *d["ci95"])] == delta
