"""The few-cluster replicate path (metrics/cells.py) gives the chunked path's artifact bit for
bit: the paired PHQ-8 example under `all` on one and two worker connections, the item
estimators, and a per-sample run with few clusters; and the shape rule picks it where the
docs say (integer losses, few participants) and not elsewhere."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import duckdb
import pytest

from riskcov.evaluation import run as evaluate
from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.metrics import cells
from riskcov.warehouse.duckdb_helpers import one

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "example_run.json"


def _artifact(wh: Path, opts: evaluate.Options, monkeypatch: Any, *, cumulative: bool) -> tuple[str, int]:
    """The artifact (without its time stamp) and how many chunks took the cells path."""
    monkeypatch.setattr(cells, "MAX_PRODUCTS_PER_CELL", 10**9 if cumulative else 0)
    taken = []
    points = cells.points

    def spy(con: Any, plan: Any) -> None:
        taken.append((one(con.execute("SELECT count(*) FROM eval_cell_draws")) or (0,))[0])
        points(con, plan)

    monkeypatch.setattr(cells, "points", spy)
    with open_warehouse(wh) as con:
        art = evaluate.run(con, opts).artifact
    art.pop("created_at")
    return json.dumps(art, sort_keys=True), sum(taken)


@pytest.fixture(scope="module")
def example_warehouse(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    from typer.testing import CliRunner

    from riskcov.cli import app

    wh = tmp_path_factory.mktemp("cells") / "w.duckdb"
    result = CliRunner().invoke(app, ["ingest", str(EXAMPLE), "--warehouse", str(wh)])
    assert result.exit_code == 0, result.output
    return wh, json.loads(EXAMPLE.read_text())["run_metadata"]["run_id"]


@pytest.mark.parametrize("workers", [1, 2])
def test_paired_phq8_all_is_bit_identical(example_warehouse, monkeypatch, workers):
    wh, run_id = example_warehouse
    opts = evaluate.Options(
        inputs=[run_id, run_id],
        modes=["zero_shot", "few_shot"],
        confidence="all",
        bootstrap_resamples=60,
        workers=workers,
        chunk_replicates=25,
    )
    chunked, none = _artifact(wh, opts, monkeypatch, cumulative=False)
    assert none == 0
    cumulative, replicates = _artifact(wh, opts, monkeypatch, cumulative=True)
    assert replicates == 61  # every replicate, 0..60, took the cells path
    assert cumulative == chunked


@pytest.mark.parametrize("estimator", ["item-step", "item-trapezoid"])
def test_item_estimators_are_bit_identical(example_warehouse, monkeypatch, estimator):
    wh, run_id = example_warehouse
    opts = evaluate.Options(
        inputs=[run_id], modes=["few_shot"], confidence="all", bootstrap_resamples=0, estimator=estimator
    )  # the point estimate only: CIs are the plateau estimator's
    chunked, _ = _artifact(wh, opts, monkeypatch, cumulative=False)
    cumulative, replicates = _artifact(wh, opts, monkeypatch, cumulative=True)
    assert replicates == 1 and cumulative == chunked


def _write_samples(path: Path, clusters: int, losses: str) -> None:
    """120 samples in `clusters` clusters, ties and abstentions; 0/1 or continuous losses."""
    rng = random.Random(5)
    con = duckdb.connect()
    kind = "correct INTEGER" if losses == "binary" else "loss DOUBLE"
    con.execute(
        f"CREATE TABLE t (sample_id VARCHAR, cluster BIGINT, confidence_a DOUBLE, {kind}, abstained BOOLEAN)"
    )
    rows = []
    for i in range(120):
        a = round(rng.random(), 1 if i % 3 else 2)
        outcome = int(rng.random() < a) if losses == "binary" else rng.random()
        rows.append((f"s{i}", rng.randrange(clusters), a, outcome, i % 10 == 0))
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)", rows)
    con.execute(f"COPY t TO '{path}' (FORMAT parquet)")
    con.close()


def test_per_sample_few_clusters_is_bit_identical(tmp_path, run_cli, monkeypatch):
    _write_samples(tmp_path / "run.parquet", 9, "binary")
    wh = tmp_path / "w.duckdb"
    assert run_cli(["ingest", tmp_path / "run.parquet", "--warehouse", wh]).exit_code == 0
    opts = evaluate.Options(inputs=["run"], confidence="all", bootstrap_resamples=40, chunk_replicates=15)
    chunked, _ = _artifact(wh, opts, monkeypatch, cumulative=False)
    cumulative, replicates = _artifact(wh, opts, monkeypatch, cumulative=True)
    assert replicates == 41 and cumulative == chunked


def test_the_shape_rule(tmp_path, run_cli, monkeypatch, example_warehouse):
    """Chosen by default for the PHQ-8 example (41 participants, integer losses); never for
    continuous losses (their sums are compensated in a fixed order on the chunked path)."""
    wh, run_id = example_warehouse
    opts = evaluate.Options(inputs=[run_id], modes=["few_shot"], confidence="all", bootstrap_resamples=5)
    chosen: list[bool] = []
    plan = cells.plan

    def spy(*args: Any, **kwargs: Any) -> Any:
        out = plan(*args, **kwargs)
        chosen.append(out is not None)
        return out

    monkeypatch.setattr(cells, "plan", spy)
    with open_warehouse(wh) as con:
        evaluate.run(con, opts)
    _write_samples(tmp_path / "run.parquet", 9, "continuous")
    cont = tmp_path / "c.duckdb"
    assert run_cli(["ingest", tmp_path / "run.parquet", "--warehouse", cont]).exit_code == 0
    monkeypatch.setattr(cells, "MAX_PRODUCTS_PER_CELL", 10**9)
    with open_warehouse(cont) as con:
        evaluate.run(con, evaluate.Options(inputs=["run"], confidence="all", bootstrap_resamples=5))
    assert chosen == [True, False]
