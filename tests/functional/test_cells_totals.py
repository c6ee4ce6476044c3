"""On the few-cluster path (metrics/cells.py) a chunk's totals and the oracle's placed runs are
inner products of each replicate's multiplicities with per-population lists: the rows
rc_totals_of and rc_placed_runs over rc_loss_runs give by joining the same draws as
eval_samples, value for value and type for type; and a chunk without replicate 0 loads no
eval_samples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from riskcov.evaluation import run as evaluate
from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.metrics import cells, engine
from riskcov.warehouse.duckdb_helpers import one

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "example_run.json"


@pytest.fixture(scope="module")
def example_warehouse(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    from typer.testing import CliRunner

    from riskcov.cli import app

    wh = tmp_path_factory.mktemp("cells_totals") / "w.duckdb"
    result = CliRunner().invoke(app, ["ingest", str(EXAMPLE), "--warehouse", str(wh)])
    assert result.exit_code == 0, result.output
    return wh, json.loads(EXAMPLE.read_text())["run_metadata"]["run_id"]


def _rows(con: Any, query: str) -> tuple[str, str]:
    """The rows in a total order and the column types, as text (bit for bit: repr of floats)."""
    rel = con.execute(f"SELECT * FROM ({query}) ORDER BY ALL")
    types = repr([d[1] for d in rel.description])
    return repr(rel.fetchall()), types


@pytest.mark.parametrize("modes", [["few_shot"], ["zero_shot", "few_shot"]])
def test_totals_and_runs_are_the_joins_rows(example_warehouse, monkeypatch, modes):
    wh, run_id = example_warehouse
    checked = []
    totals = cells.totals

    def spy(con: Any, plan: Any, samples: Any) -> None:
        totals(con, plan, samples)
        engine.load_samples(con, *samples)
        assert _rows(con, "FROM eval_totals") == _rows(
            con, "FROM rc_totals_of('eval_series', 'eval_people', 'eval_samples')"
        )
        runs = "WITH runs AS (FROM rc_loss_runs('eval_losses', 'eval_samples')) FROM rc_placed_runs('runs')"
        assert _rows(con, "FROM eval_runs") == _rows(con, runs)
        checked.append((one(con.execute("SELECT count(DISTINCT population) FROM eval_runs")) or (0,))[0])

    monkeypatch.setattr(cells, "totals", spy)
    opts = evaluate.Options(
        inputs=[run_id] * len(modes),
        modes=modes,
        confidence="all",
        bootstrap_resamples=50,
        chunk_replicates=20,
        workers=1,
    )
    with open_warehouse(wh) as con:
        evaluate.run(con, opts)
    assert checked == [len(modes)] * 3  # 51 replicates in chunks of 20, every one checked


def test_a_chunk_without_replicate_0_loads_no_samples(example_warehouse, monkeypatch):
    wh, run_id = example_warehouse
    loaded: list[int] = []
    load = engine.load_samples

    def spy(con: Any, replicate: Any, *rest: Any) -> None:
        loaded.append(int(min(replicate)))
        load(con, replicate, *rest)

    monkeypatch.setattr(engine, "load_samples", spy)
    opts = evaluate.Options(
        inputs=[run_id],
        modes=["few_shot"],
        confidence="all",
        bootstrap_resamples=50,
        chunk_replicates=20,
        workers=1,
    )
    with open_warehouse(wh) as con:
        evaluate.run(con, opts)
    assert loaded == [0]
