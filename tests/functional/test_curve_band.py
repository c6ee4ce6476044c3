"""Bootstrap bands of RC curves (riskcov.bootstrap.curve_band) on the example run: the band's
selective risk at a grid coverage c is exactly the bootstrap CI evaluate reports for
MAE@coverage c (the same step, computed by another macro), and replicate 0 on the grid is
the artifact's curve read as a right-continuous step."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from riskcov.bootstrap.curve_band import BandCollector, coverage_grid
from riskcov.errors import UsageError
from riskcov.evaluation.curves import evaluated_lines
from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.evaluation.run import Options, run
from riskcov.report.curves import lines_from_artifact

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "example_run.json"
GRID = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]


@pytest.fixture(scope="module")
def banded(tmp_path_factory):
    opts = Options(
        inputs=[str(EXAMPLE)],
        modes=["zero_shot", "few_shot"],
        bootstrap_resamples=60,
        coverage_grid=GRID,
        chunk_replicates=7,  # several chunks, so the collector merges them
    )
    with open_warehouse(tmp_path_factory.mktemp("band") / "w.duckdb") as con:
        collector = BandCollector(61)
        art = run(con, opts, after_chunk=collector).artifact
    return collector, art


def test_band_equals_the_mae_at_coverage_ci(banded):
    collector, art = banded
    bands = collector.bands()
    assert sorted(bands) == [("llm", 0), ("llm", 1), ("total_evidence", 0), ("total_evidence", 1)]
    checked = 0
    for (csf, k), band in bands.items():
        ci = art["confidence_variants"][csf][f"input_{k}"]["bootstrap"]["ci95"]["mae_at_coverage"]
        for key, bounds in ci.items():
            g = band.coverage.index(float(key))
            got = [band.low["selective_risk"][g], band.high["selective_risk"][g]]
            assert got == (bounds or [None, None]), (csf, k, key)
            checked += bounds is not None
    assert checked == 26  # 0.1-0.6 for zero_shot, 0.1-0.7 for few_shot, two CSFs each


def test_replicate_zero_is_the_artifact_curve_as_a_step(banded):
    collector, art = banded
    grid = coverage_grid()
    for s in collector.series:
        curve = art["confidence_variants"][s.csf.name][f"input_{s.input_no}"]["curve"]
        for name in ("selective_risk", "generalized_risk"):
            got = collector.values[name][s.index, 0]
            for g, c in enumerate(grid):
                hit = next((i for i, cov in enumerate(curve["coverage"]) if cov >= c), None)
                if hit is None:
                    assert math.isnan(got[g])
                else:
                    assert got[g] == curve[name][hit]


def test_band_is_undefined_above_the_point_cmax(banded):
    collector, art = banded
    band = collector.bands()[("llm", 0)]
    cmax = art["confidence_variants"]["llm"]["input_0"]["cmax"]  # 25/37
    defined = [c for c, lo in zip(band.coverage, band.low["generalized_risk"], strict=True) if lo is not None]
    assert defined == [c for c in coverage_grid() if c <= cmax]
    assert all(
        lo <= hi
        for lo, hi in zip(band.low["generalized_risk"], band.high["generalized_risk"], strict=True)
        if lo is not None
    )


def test_evaluated_lines_are_the_artifact_curves_and_store_nothing(paired_evaluation, take_snapshot):
    warehouse, _, art = paired_evaluation
    before = take_snapshot(warehouse)
    opts = Options(inputs=[str(EXAMPLE)], modes=["zero_shot", "few_shot"], bootstrap_resamples=20)
    with open_warehouse(warehouse) as con:
        lines = evaluated_lines(con, opts, ["llm", "default"], ci=True)
        evaluations = con.execute("SELECT count(*) FROM evaluations").fetchall()
    expected = lines_from_artifact(art)
    assert [line.label for line in lines] == [line.label for line in expected]
    for got, want in zip(lines, expected, strict=True):
        assert (got.coverage, got.selective_risk, got.generalized_risk, got.cmax) == (
            want.coverage,
            want.selective_risk,
            want.generalized_risk,
            want.cmax,
        )
        assert got.band is not None and len(got.band.coverage) == 100
    assert evaluations == [(1,)]
    assert take_snapshot(warehouse) == before


def test_ci_needs_two_resamples(paired_evaluation):
    opts = Options(inputs=[str(EXAMPLE)], modes=["few_shot"], bootstrap_resamples=1)
    with open_warehouse(paired_evaluation[0]) as con, pytest.raises(UsageError) as exc:
        evaluated_lines(con, opts, [], ci=True)
    assert str(exc.value) == "--ci needs --bootstrap-resamples >= 2, not 1"
