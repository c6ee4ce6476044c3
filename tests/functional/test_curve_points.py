"""`evaluate --curve-points K` and `riskcov curve`: the RC curve at K coverages 0..Cmax, read
from the working points as a right-continuous step (issue "Per-sample runs", item 5)."""

from __future__ import annotations

import json

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples

WORKED = "sample_id,confidence,correct\n1,0.9,1\n2,0.7,1\n3,0.7,0\n4,0.5,0\n5,0.2,1\n"


def _ingest(run_cli, tmp_path, name: str, text: str):
    src = tmp_path / f"{name}.csv"
    src.write_text(text)
    wh = tmp_path / "w.duckdb"
    r = run_cli(["ingest", src, "--warehouse", wh])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    return wh


def _evaluate(run_cli, wh, *args: str) -> dict:
    """The one CSF's METRICS of a single-input evaluation."""
    r = run_cli(["evaluate", "--warehouse", wh, "--bootstrap-resamples", "0", "--json", *args])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    return json.loads(r.stdout)["confidence_variants"]["confidence"]


def test_the_worked_example_at_six_coverages(tmp_path, run_cli):
    wh = _ingest(run_cli, tmp_path, "worked", WORKED)
    m = _evaluate(run_cli, wh, "--input", "worked", "--curve-points", "6")
    # points (0.2, 0, 0), (0.6, 1/3, 0.2), (0.8, 1/2, 0.4), (1.0, 0.4, 0.4); coverage 0.4 and 0.6
    # both read the point at 0.6, coverage 0 reads the first point
    assert m["curve_grid"] == {
        "coverage": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
        "selective_risk": [0.0, 0.0, 1 / 3, 1 / 3, 0.5, 0.4],
        "generalized_risk": [0.0, 0.0, 0.2, 0.2, 0.4, 0.4],
    }
    assert "curve_grid" not in _evaluate(run_cli, wh, "--input", "worked")


def test_the_grid_ends_at_cmax_when_samples_abstain(tmp_path, run_cli):
    text = "sample_id,confidence,correct,abstained\n1,0.9,1,false\n2,0.8,0,false\n3,,1,true\n"
    wh = _ingest(run_cli, tmp_path, "abst", text)
    grid = _evaluate(run_cli, wh, "--input", "abst", "--curve-points", "3")
    assert grid["curve_grid"] == {
        "coverage": [0.0, 1 / 3, 2 / 3],
        "selective_risk": [0.0, 0.0, 0.5],
        "generalized_risk": [0.0, 0.0, 1 / 3],
    }


@pytest.mark.parametrize("k", ["1", "0", "100001"])
def test_too_few_or_too_many_points_is_a_usage_error(tmp_path, run_cli, k):
    wh = _ingest(run_cli, tmp_path, "worked", WORKED)
    r = run_cli(["evaluate", "--input", "worked", "--warehouse", wh, "--curve-points", k])
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", f"error: --curve-points {k} is not in 2..100,000\n")


@pytest.mark.slow  # whole evaluations per example (docs/testing.md)
@settings(max_examples=examples(25), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.tuples(st.integers(0, 6), st.booleans(), st.booleans()), min_size=1, max_size=30),
    st.integers(2, 40),
)
def test_each_grid_value_is_the_first_working_point_at_or_past_it(tmp_path_factory, run_cli, rows, k):
    tmp = tmp_path_factory.mktemp("grid")
    text = "sample_id,confidence,correct,abstained\n" + "".join(
        f"{i},{'' if ab else conf / 6},{int(ok)},{str(ab).lower()}\n" for i, (conf, ok, ab) in enumerate(rows)
    )
    wh = _ingest(run_cli, tmp, "r", text)
    m = _evaluate(run_cli, wh, "--input", "r", "--curve-points", str(k))
    curve, grid = m["curve"], m["curve_grid"]
    cmax = m["cmax"]
    assert grid["coverage"][-1] == cmax
    assert grid["coverage"] == [i * cmax / (k - 1) for i in range(k - 1)] + [cmax]
    for j, c in enumerate(grid["coverage"]):
        hit = next((i for i, x in enumerate(curve["coverage"]) if x >= c), None)
        expected = (
            (None, None) if hit is None else (curve["selective_risk"][hit], curve["generalized_risk"][hit])
        )
        assert (grid["selective_risk"][j], grid["generalized_risk"][j]) == expected


def test_riskcov_curve_writes_the_same_rows_as_csv_parquet_and_json(tmp_path, run_cli):
    wh = _ingest(run_cli, tmp_path, "worked", WORKED)
    out = {}
    for fmt in ("csv", "parquet", "json"):
        path = tmp_path / f"curve.{fmt}"
        r = run_cli(
            ["curve", "worked", "--points", "6", "--format", fmt, "--output", path, "--warehouse", wh]
        )
        assert (r.exit_code, r.stdout, r.stderr) == (0, f"wrote {path}: 6 rows\n", "")
        out[fmt] = path
    expected = [
        ("worked", "worked", 1, "confidence", j, c, s, g)
        for j, (c, s, g) in enumerate(
            zip(
                [0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
                [0.0, 0.0, 1 / 3, 1 / 3, 0.5, 0.4],
                [0.0, 0.0, 0.2, 0.2, 0.4, 0.4],
                strict=True,
            )
        )
    ]
    con = duckdb.connect()
    assert con.execute(f"SELECT * FROM read_csv('{out['csv']}')").fetchall() == expected
    assert con.execute(f"SELECT * FROM read_parquet('{out['parquet']}')").fetchall() == expected
    assert [tuple(r.values()) for r in json.loads(out["json"].read_text())] == expected
    r = run_cli(["curve", "worked", "--format", "xml", "--output", tmp_path / "x", "--warehouse", wh])
    assert (r.exit_code, r.stderr) == (2, "error: --format xml: choose one of csv, parquet, json\n")
    assert not (tmp_path / "x").exists()


def test_a_paired_curve_names_its_inputs(tmp_path, run_cli):
    _ingest(run_cli, tmp_path, "left", WORKED)
    wh = _ingest(run_cli, tmp_path, "right", WORKED.replace("5,0.2,1", "5,0.2,0"))
    path = tmp_path / "pair.json"
    r = run_cli(
        ["curve", "left", "right", "--points", "2", "--format", "json", "--output", path, "--warehouse", wh]
    )
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    rows = json.loads(path.read_text())
    assert [(x["input"], x["point"], x["coverage"], x["selective_risk"]) for x in rows] == [
        ("left", 0, 0.0, 0.0),
        ("left", 1, 1.0, 0.4),
        ("right", 0, 0.0, 0.0),
        ("right", 1, 1.0, 0.6),
    ]
