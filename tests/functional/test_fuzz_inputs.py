"""Every input path's bad kinds, generated here (no binary corpus): each is one `error:` line,
its documented exit code (1 bad data, 2 bad flags, docs/reliability.md), no traceback, and the
warehouse unchanged (every table's rows compared, i.e. row counts and contents)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((REPO / "examples" / "example_run.json").read_text())
CSV_HEAD = "sample_id,confidence,correct\n"

# a kind: (name, exit code, make(folder) -> the CLI arguments after the command's warehouse)
Kind = tuple[str, int, Callable[[Path], list[Any]]]


def _write(folder: Path, name: str, data: str | bytes) -> Path:
    path = folder / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)
    return path


def _run(change: Callable[[dict[str, Any]], Any]) -> str:
    doc = json.loads(json.dumps(EXAMPLE))
    change(doc)
    return json.dumps(doc)


def _first(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["experiments"][0]["results"]["results"][0]


def _ingest(name: str, data: str | bytes) -> Callable[[Path], list[Any]]:
    return lambda d: ["ingest", _write(d, name, data)]


def _parquet(select: str) -> Callable[[Path], list[Any]]:
    def make(d: Path) -> list[Any]:
        path = d / "t.parquet"
        con = duckdb.connect()
        con.execute(f"COPY ({select}) TO '{path}' (FORMAT parquet)")
        con.close()
        return ["ingest", path]

    return make


def _fifo(name: str) -> Callable[[Path], list[Any]]:
    def make(d: Path) -> list[Any]:
        os.mkfifo(d / name)
        return ["ingest", d / name]

    return make


def _link(name: str, target: str) -> Callable[[Path], list[Any]]:
    def make(d: Path) -> list[Any]:
        (d / name).symlink_to(target)
        return ["ingest", d / name]

    return make


def _calibrator(data: str) -> Callable[[Path], list[Any]]:
    def make(d: Path) -> list[Any]:
        cal = _write(d, "cal.json", data)
        args = ["evaluate", "--input", EXAMPLE["run_metadata"]["run_id"], "--mode", "few_shot"]
        return [*args, "--bootstrap-resamples", "0", "--confidence", "calibrated", "--calibration", cal]

    return make


def _evaluate(*flags: str) -> Callable[[Path], list[Any]]:
    return lambda d: ["evaluate", "--input", "m", "--bootstrap-resamples", "0", *flags]


def _iso(xs: list[Any], ys: list[Any], **extra: Any) -> str:
    doc = {"method": "isotonic", "features": ["token_msp"], "target": "correctness", **extra}
    doc["model"] = {"x_thresholds": xs, "y_thresholds": ys}
    return json.dumps(doc)


RUN_JSON: list[Kind] = [
    ("json-not-json", 1, _ingest("r.json", "not json at all")),
    ("json-truncated", 1, _ingest("r.json", json.dumps(EXAMPLE)[:500])),
    ("json-not-utf8", 1, _ingest("r.json", b'{"run_metadata": {"run_id": "\xff\xfe"}}')),
    ("json-top-list", 1, _ingest("r.json", "[1, 2]")),
    ("json-no-metadata", 1, _ingest("r.json", _run(lambda d: d.pop("run_metadata")))),
    ("json-run-id-empty", 1, _ingest("r.json", _run(lambda d: d["run_metadata"].update(run_id="")))),
    ("json-run-id-number", 1, _ingest("r.json", _run(lambda d: d["run_metadata"].update(run_id=7)))),
    ("json-run-id-newline", 1, _ingest("r.json", _run(lambda d: d["run_metadata"].update(run_id="a\nb")))),
    ("json-run-id-escape", 1, _ingest("r.json", _run(lambda d: d["run_metadata"].update(run_id="\x1b[31m")))),
    ("json-no-experiments", 1, _ingest("r.json", _run(lambda d: d.update(experiments=[])))),
    ("json-experiments-dict", 1, _ingest("r.json", _run(lambda d: d.update(experiments={})))),
    ("json-no-results", 1, _ingest("r.json", _run(lambda d: d["experiments"][0].pop("results")))),
    (
        "json-empty-results",
        1,
        _ingest("r.json", _run(lambda d: d["experiments"][0]["results"].update(results=[]))),
    ),
    (
        "json-duplicate-participant-key",
        1,
        _ingest(
            "r.json",
            json.dumps(EXAMPLE).replace('"participant_id"', '"participant_id": 999, "participant_id"', 1),
        ),
    ),
    (
        "json-duplicate-run-id-key",
        1,
        _ingest("r.json", json.dumps(EXAMPLE).replace('"run_id"', '"run_id": "x", "run_id"', 1)),
    ),
    ("json-nan", 1, _ingest("r.json", json.dumps(EXAMPLE).replace('"run_id"', '"n": NaN, "run_id"', 1))),
    ("json-deep", 1, _ingest("r.json", "[" * 200_000 + "]" * 200_000)),
    ("json-huge-int", 1, _ingest("r.json", '{"a": ' + "9" * 5000 + "}")),
    ("json-participant-id-text", 1, _ingest("r.json", _run(lambda d: _first(d).update(participant_id="p")))),
    (
        "json-participant-null",
        1,
        _ingest("r.json", _run(lambda d: d["experiments"][0]["results"]["results"].append(None))),
    ),
]

PER_SAMPLE: list[Kind] = [
    ("csv-empty", 1, _ingest("t.csv", "")),
    ("csv-header-only", 1, _ingest("t.csv", CSV_HEAD)),
    ("csv-misspelt-column", 1, _ingest("t.csv", "sample_id,confidence,corect\n1,0.5,1\n")),
    ("csv-no-sample-id", 1, _ingest("t.csv", "confidence,correct\n0.5,1\n")),
    ("csv-confidence-text", 1, _ingest("t.csv", CSV_HEAD + "1,high,1\n")),
    ("csv-confidence-nan", 1, _ingest("t.csv", CSV_HEAD + "1,nan,1\n")),
    ("csv-duplicate-id", 1, _ingest("t.csv", CSV_HEAD + "1,0.5,1\n1,0.4,0\n")),
    ("csv-negative-loss", 1, _ingest("t.csv", "sample_id,confidence,loss\n1,0.5,-1\n")),
    ("csv-ragged", 1, _ingest("t.csv", CSV_HEAD + "1,0.5\n")),
    ("csv-not-utf8", 1, _ingest("t.csv", b"sample_id,\xff\n1,2\n")),
    ("csv-two-loss-sources", 1, _ingest("t.csv", "sample_id,confidence,loss,correct\n1,0.5,0,1\n")),
    ("jsonl-invalid", 1, _ingest("t.jsonl", '{"sample_id": 1, "confidence": 0.5, "correct": 1}\n{oops\n')),
    ("jsonl-nested", 1, _ingest("t.jsonl", '{"sample_id": 1, "confidence": {"a": 1}, "correct": 1}\n')),
    ("parquet-garbage", 1, _ingest("t.parquet", b"PAR1 not really")),
    ("parquet-list", 1, _parquet("SELECT 1 AS sample_id, [0.5]::DOUBLE[] AS confidence, true AS correct")),
    ("parquet-struct", 1, _parquet("SELECT 1 AS sample_id, {'a': 0.5} AS confidence, true AS correct")),
    ("unknown-suffix", 1, _ingest("t.txt", "hello\n")),
]

PATHS: list[Kind] = [
    ("fifo-json", 1, _fifo("f.json")),
    ("fifo-csv", 1, _fifo("f.csv")),
    ("dev-zero", 1, _link("z.json", "/dev/zero")),
    ("missing-file", 1, lambda d: ["ingest", d / "absent.csv"]),
    ("empty-folder", 1, lambda d: ["ingest", (d / "empty").mkdir() or d / "empty"]),
]

CALIBRATORS: list[Kind] = [
    ("cal-not-json", 1, _calibrator("{")),
    ("cal-deep", 1, _calibrator('{"a": ' * 100_000 + "1" + "}" * 100_000)),
    (
        "cal-schema-99",
        1,
        _calibrator(json.dumps({"schema_version": "99", "method": "temperature_scaling", "temperature": 2})),
    ),
    ("cal-nan", 1, _calibrator('{"method": "temperature_scaling", "temperature": NaN}')),
    ("cal-unsorted-knots", 1, _calibrator(_iso([0.5, 0.1], [0.2, 0.3]))),
    ("cal-knot-lengths", 1, _calibrator(_iso([0.1, 0.5], [0.2]))),
    ("cal-feature-newline", 1, _calibrator(_iso([0.1], [0.2], features=["token_msp\n"]))),
    ("cal-unknown-method", 1, _calibrator('{"method": "magic"}')),
]

FLAGS: list[Kind] = [
    ("alpha-above-1", 2, _evaluate("--alpha-grid", "1.5")),
    ("alpha-negative", 2, _evaluate("--alpha-grid", "-0.1")),
    ("alpha-text", 2, _evaluate("--alpha-grid", "x")),
    ("coverage-zero", 2, _evaluate("--coverage-grid", "0")),
    ("area-coverage-2", 2, _evaluate("--area-coverage", "2")),
    ("resamples-too-many", 2, _evaluate("--bootstrap-resamples", "10000000000")),
    ("seed-negative", 2, _evaluate("--seed", "-1")),
    ("unknown-confidence", 2, _evaluate("--confidence", "nonsense")),
    (
        "features-injection",
        2,
        lambda d: ["calibrate", "--input", "m", "--method", "platt", "--features", "x'); DROP TABLE runs;--"],
    ),
    ("output-fifo", 2, lambda d: [*_evaluate()(d), "--output", os.mkfifo(d / "o.json") or d / "o.json"]),
    ("output-folder", 2, lambda d: [*_evaluate()(d), "--output", d]),
    ("publish-to-text", 2, lambda d: ["publish", "--to", _write(d, "notes.txt", "mine\n")]),
    ("publish-to-folder", 2, lambda d: ["publish", "--to", d]),
]

CORPUS = RUN_JSON + PER_SAMPLE + PATHS + CALIBRATORS + FLAGS


@pytest.fixture(scope="module")
def seeded_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse holding a per-sample run `m` and the example PHQ-8 run, made once per process."""
    from typer.testing import CliRunner

    from riskcov.cli import app

    folder = tmp_path_factory.mktemp("fuzz")
    samples = _write(
        folder, "m.csv", CSV_HEAD + "".join(f"{i},{(i * 7 % 10) / 10},{i % 2}\n" for i in range(10))
    )
    wh = folder / "w.duckdb"
    result = CliRunner().invoke(
        app, ["ingest", str(samples), "--warehouse", str(wh)], env={"RISKCOV_PUBLISH": "0"}
    )
    assert result.exit_code == 0, result.output
    run = _write(folder, "run.json", json.dumps(EXAMPLE))
    result = CliRunner().invoke(
        app, ["ingest", str(run), "--warehouse", str(wh)], env={"RISKCOV_PUBLISH": "0"}
    )
    assert result.exit_code == 0, result.output
    con = duckdb.connect(str(wh))
    con.execute("CHECKPOINT")
    con.close()
    return wh


@pytest.mark.parametrize(("name", "code", "make"), CORPUS, ids=[k[0] for k in CORPUS])
def test_a_bad_input_is_one_line_its_exit_code_and_changes_nothing(
    name, code, make, seeded_template, tmp_path, run_cli, take_snapshot
):
    wh = tmp_path / "w.duckdb"
    wh.write_bytes(seeded_template.read_bytes())
    before = take_snapshot(wh)
    work = tmp_path / "in"
    work.mkdir()
    args = make(work)
    result = run_cli([*args, "--warehouse", wh])
    assert not result.crashed, result.exception
    assert result.exit_code == code, result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert "bug in riskcov" not in result.stderr
    assert take_snapshot(wh) == before
    leftovers = [p.name for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []


def test_the_corpus_covers_every_input_path():
    kinds = {name.split("-")[0] for name, _, _ in CORPUS}
    assert {"json", "csv", "jsonl", "parquet", "fifo", "dev", "cal", "alpha", "output", "publish"} <= kinds
    assert len(CORPUS) == len({name for name, _, _ in CORPUS})
