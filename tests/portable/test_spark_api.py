"""`riskcov.evaluate(..., engine="spark")` (docs/python.md) gives the DuckDB engine's artifact to
1e-12, group block included, from in-memory data: the API's engine keywords are the CLI's
--engine, --spark-master and --spark-conf. In the `pytest -m spark` job of .ci/run."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from spark_support import close

import riskcov


def _data() -> dict[str, Any]:
    rng = np.random.default_rng(17)
    n = 90
    return {
        "confidence": np.round(rng.random(n), 1),  # ties: plateaus
        "correct": rng.random(n) < 0.7,
        "cluster": rng.integers(0, 15, n),
        "site": rng.choice(["a", "b"], n),
    }


@pytest.mark.spark
def test_api_engine_spark_equals_duckdb() -> None:
    pytest.importorskip("pyspark", reason="the spark extra: pip install 'riskcov[spark]'")
    keywords = {"resamples": 8, "seed": 3, "group": "site", "costs": [0, 1]}
    want = riskcov.evaluate(_data(), **keywords).artifact
    conf = {"spark.sql.shuffle.partitions": "4"}
    spark = {"engine": "spark", "spark_master": "local[2]", "spark_conf": conf}
    got = riskcov.evaluate(_data(), **keywords, **spark).artifact
    assert got["options"].pop("engine") == "spark" and want["options"].get("engine") is None
    diffs: list[str] = []
    for key in ("groups", "population", "confidence_variants"):
        close(want[key], got[key], key, diffs)
    assert diffs == [], diffs[:10]
    assert want["groups"]["values"] == ["a", "b"]
    lo, hi = want["confidence_variants"]["confidence"]["bootstrap"]["ci95"]["aurc_full"]
    assert lo < hi
