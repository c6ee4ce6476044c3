"""scripts/make_samples_example.py: deterministic, and the shipped Parquet file is its output."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "examples" / "selective_samples.parquet"


@pytest.fixture(scope="module")
def gen() -> Any:
    spec = importlib.util.spec_from_file_location(
        "make_samples_example", ROOT / "scripts" / "make_samples_example.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(path: Path) -> list[tuple[Any, ...]]:
    with duckdb.connect() as con:
        return con.execute(f"SELECT * FROM read_parquet('{path}')").fetchall()  # file order


def test_same_seed_same_rows_other_seed_other_rows(gen):
    assert gen.make_columns(seed=1, samples=50) == gen.make_columns(seed=1, samples=50)
    assert gen.make_columns(seed=1, samples=50) != gen.make_columns(seed=2, samples=50)


@pytest.mark.slow  # regenerates the whole shipped example (docs/testing.md)
def test_shipped_example_is_the_generator_output(gen, tmp_path):
    out = tmp_path / "again.parquet"
    assert gen.main([str(out)]) == 0
    assert _rows(out) == _rows(SHIPPED)
    assert SHIPPED.stat().st_size < 3_000_000


def test_shipped_example_layout():
    with duckdb.connect() as con:
        counts = con.execute(
            "SELECT method, split, domain, count(DISTINCT seed), count(*), avg(correct) "
            f"FROM read_parquet('{SHIPPED}') GROUP BY ALL ORDER BY ALL"
        ).fetchall()
        columns = [d[0] for d in con.execute(f"SELECT * FROM read_parquet('{SHIPPED}') LIMIT 0").description]
    assert columns == [
        "method",
        "seed",
        "split",
        "domain",
        "sample_id",
        "correct",
        "prob",
        "confidence",
        "confidence_msp",
    ]
    assert [(m, s, d, k, n) for m, s, d, k, n, _ in counts] == [
        (m, s, d, 5, 5 * (8000 if d == "id" else 2000))
        for m in ("crc-select", "posthoc-crc", "vanilla")
        for s in ("cal", "test")
        for d in ("id", "ood")
    ]
    assert all(acc == 0 for *_, d, _, _, acc in counts if d == "ood")  # OOD is never correct
