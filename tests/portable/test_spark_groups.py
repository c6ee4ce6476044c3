"""`evaluate --group COLUMN --engine spark` on a file Spark reads where it lies gives the DuckDB
engine's `groups` block (per-group metrics with CIs over the evaluation's own draws, and the
coverage gaps) to 1e-12: groups by a text attribute with a group whose samples all abstain,
and by an integer label (its values as text). The portable coverage query equals the macro
rc_group_coverage in DuckDB, bit for bit (no Spark needed). The Spark tests are in the
`pytest -m spark` job of .ci/run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest
from portable_support import load_macros
from spark_support import EXTRA, close, evaluate_cli, samples_parquet

from riskcov.metrics import portable


def test_portable_group_coverage_equals_the_macro_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    con = duckdb.connect()
    load_macros(con)
    n = 300
    abstained, values = rng.random(n) < 0.15, rng.choice([0.1, 0.4, 0.7], n)
    conf = [None if a else float(c) for a, c in zip(abstained, values, strict=True)]
    con.execute(
        "CREATE TABLE grouped AS SELECT unnest($s::INTEGER[]) AS series, unnest($c::DOUBLE[]) AS confidence, "
        "unnest($g::VARCHAR[]) AS grp",
        {"s": rng.integers(0, 2, n).tolist(), "c": conf, "g": rng.choice(["a", "b", "c"], n).tolist()},
    )
    # thresholds on and between the confidences, and NULL (no qualifying point: none accepted)
    con.execute("CREATE TABLE thresholds (series INTEGER, alpha DOUBLE, threshold DOUBLE)")
    con.execute(
        "INSERT INTO thresholds VALUES (0, 0.05, 0.4), (0, 0.1, 0.55), (0, 0.2, NULL), "
        "(1, 0.05, 0.1), (1, 0.1, 0.7)"
    )
    order = " ORDER BY series, alpha, grp"
    want = con.execute("FROM rc_group_coverage('grouped', 'thresholds')" + order).fetchall()
    got = con.execute(f"SELECT * FROM ({portable.render('group_coverage', 'duckdb')})" + order).fetchall()
    assert got == want and len(want) == 15
    assert [r[3] for r in want if r[1] == 0.2] == [0.0, 0.0, 0.0]
    # one hand-checked value: series 0's group a at threshold 0.4
    acc = con.execute(
        "SELECT count(*) FILTER (WHERE confidence >= 0.4), count(*) FROM grouped "
        "WHERE series = 0 AND grp = 'a'"
    ).fetchone()
    assert acc is not None and next(r[3] for r in want if r[:3] == (0, 0.05, "a")) == acc[0] / acc[1]


# budgets the data's risks reach (thresholds, so gaps) and one they do not (no threshold)
ALPHAS = ("--alpha-grid", "0.01,0.2,0.3")


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark", reason="the spark extra: pip install 'riskcov[spark]'")
    from riskcov.evaluation.spark_session import session

    s = session("local[2]")
    yield s
    s.stop()


@pytest.mark.spark
def test_group_on_a_file_spark_reads_equals_duckdb(tmp_path: Path, spark: Any) -> None:
    base = tmp_path / "base.parquet"
    samples_parquet(base, np.random.default_rng(21), 120, [0.0, 0.0, 0.0, 0.5, 1.0])
    data = tmp_path / "runs.parquet"
    # site: z for every abstained sample (a group that abstains entirely), else a or b
    duckdb.connect().execute(
        f"COPY (SELECT *, CASE WHEN abstained THEN 'z' WHEN sample_id % 2 = 0 THEN 'a' ELSE 'b' END AS site "
        f"FROM '{base}') TO '{data}' (FORMAT parquet)"
    )
    for column, values in (("site", ["a", "b", "z"]), ("label", ["0", "1", "2"])):
        arts = {}
        for engine in ("duckdb", "spark"):
            name = f"{engine}_{column}"
            res, arts[engine] = evaluate_cli(
                tmp_path, name, engine, str(data), "--method", "m", "--group", column, *ALPHAS, *EXTRA
            )
            assert res.exit_code == 0, (engine, column, res.output)
        want, got = arts["duckdb"], arts["spark"]
        assert got["options"].pop("engine") == "spark" and got["options"]["group"] == column
        assert want["groups"]["values"] == values == got["groups"]["values"]
        diffs: list[str] = []
        for key in ("groups", "population", "confidence_variants"):
            close(want[key], got[key], key, diffs)
        assert diffs == [], (column, diffs[:10])
        # the CIs compared are real ones, and the gaps differ from zero somewhere
        block = want["groups"]["metrics"]["confidence"]
        lo, hi = block[values[0]]["ci95"]["aurc_full"]
        assert lo < hi
        gaps = [g["gap"] for g in want["groups"]["coverage_gaps"]["confidence"].values()]
        assert any(g > 0 for g in gaps), gaps
        if column == "site":
            # z abstains entirely: counted, never accepted
            assert block["z"]["n"] > 0 and block["z"]["cmax"] == 0.0
            at = want["groups"]["coverage_gaps"]["confidence"].values()
            assert all(g["coverage"]["z"] == 0.0 for g in at)
        # the rows held for the evaluation (clusters, scored units, each chunk's weights, totals
        # and points) are released when it ends, not left to the JVM's garbage collector
        held = {i.id() for i in spark.sparkContext._jsc.sc().getRDDStorageInfo()}
        for view in ("riskcov_scored", "riskcov_points", "riskcov_samples"):
            plan = spark.table(view)._jdf.queryExecution().optimizedPlan()
            assert plan.getClass().getSimpleName() == "LogicalRDD" and plan.rdd().id() not in held, view
        # the group rows land in the local warehouse as with DuckDB
        wh = duckdb.connect(str(tmp_path / f"spark_{column}.duckdb"), read_only=True)
        stored = wh.execute("SELECT count(DISTINCT group_value) FROM evaluation_group_metrics").fetchone()
        wh.close()
        assert stored == (len(values),)


@pytest.mark.spark
def test_group_usage_and_input_errors_on_a_file_spark_reads(tmp_path: Path, spark: Any) -> None:
    data = tmp_path / "runs.parquet"
    duckdb.connect().execute(
        f"COPY (SELECT range AS sample_id, 0.5 AS confidence, 0.0 AS loss, "
        f"CASE WHEN range = 7 THEN NULL ELSE 'x' END AS site FROM range(12)) TO '{data}' (FORMAT parquet)"
    )
    res, _ = evaluate_cli(tmp_path, "bad", "spark", str(data), "--group", "ward")
    assert res.exit_code == 2, res.output
    assert f"--group ward: not a column of {data}; choose one of label, prediction, site" in res.output
    res, _ = evaluate_cli(tmp_path, "bad", "spark", str(data), "--group", "site")
    assert res.exit_code == 1, res.output
    lines = res.output.strip().splitlines()
    assert lines == [f"error: --group site: sample 7 of {data} has no site"], res.output
    wh = duckdb.connect(str(tmp_path / "bad.duckdb"), read_only=True)
    assert wh.execute("SELECT count(*) FROM evaluations").fetchone() == (0,)
    wh.close()
