"""What the Spark tests share (test_portable_spark.py, test_spark_connect.py): a per-sample
Parquet file with ties, abstentions, text clusters, two methods and labels; an evaluation
through the CLI; and the comparison of two artifacts to 1e-12 (relative for percentages)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import duckdb


def close(a: Any, b: Any, path: str, out: list[str]) -> None:
    if isinstance(a, dict):
        assert set(a) == set(b), path
        for k in a:
            close(a[k], b[k], f"{path}/{k}", out)
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            close(x, y, f"{path}[{i}]", out)
    elif isinstance(a, float) or isinstance(b, float):
        tol = 1e-12 * max(1.0, abs(a)) if path.endswith("_pct") else 1e-12
        if a is None or b is None or not math.isclose(a, b, rel_tol=0, abs_tol=tol):
            out.append(f"{path}: duckdb {a} spark {b}")
    elif a != b:
        out.append(f"{path}: duckdb {a} spark {b}")


def samples_parquet(
    path: Path,
    rng: Any,
    n: int,
    losses: list[float],
    method: str = "m",
    prob: list[float | None] | None = None,
) -> None:
    """A per-sample Parquet file: ties, abstentions, two score columns, text clusters (so their
    order is text order: c10 before c2), two methods (the evaluation picks one), labels (the
    class-balanced areas); with `prob`, a prob column of those values in turn."""
    con = duckdb.connect()
    cols = {
        "sample_id": list(range(n)),
        "confidence": rng.choice([0.2, 0.5, 0.8, 0.9], n).tolist(),
        "confidence_msp": rng.random(n).round(2).tolist(),
        "loss": rng.choice(losses, n).tolist(),
        "abstained": (rng.random(n) < 0.1).tolist(),
        "cluster": [f"c{k}" for k in rng.integers(0, 20, n)],
        "method": [method if k % 3 else "other" for k in range(n)],
        "label": rng.integers(0, 3, n).tolist(),
        "prediction": rng.integers(0, 3, n).tolist(),
    }
    con.execute(
        "COPY (SELECT unnest($s::BIGINT[]) AS sample_id, unnest($c::DOUBLE[]) AS confidence, "
        "unnest($m::DOUBLE[]) AS confidence_msp, unnest($l::DOUBLE[]) AS loss, "
        "unnest($a::BOOLEAN[]) AS abstained, unnest($k::VARCHAR[]) AS cluster, "
        "unnest($e::VARCHAR[]) AS method, unnest($y::BIGINT[]) AS label, "
        "unnest($p::BIGINT[]) AS prediction"
        + ("" if prob is None else ", unnest($q::DOUBLE[]) AS prob")
        + f") TO '{path}' (FORMAT parquet)",
        {"s": cols["sample_id"], "c": cols["confidence"], "m": cols["confidence_msp"], "l": cols["loss"],
         "a": cols["abstained"], "k": cols["cluster"], "e": cols["method"], "y": cols["label"],
         "p": cols["prediction"]} | ({} if prob is None else {"q": [prob[i % len(prob)] for i in range(n)]}),
    )  # fmt: skip


def evaluate_cli(tmp_path: Path, name: str, engine: str, spec: str, *extra: str) -> Any:
    from typer.testing import CliRunner

    from riskcov.cli import app

    out = tmp_path / f"{name}.json"
    args = ["evaluate", "--warehouse", str(tmp_path / f"{name}.duckdb"), "--input", spec,
            "--bootstrap-resamples", "8", "--output", str(out), "--engine", engine,
            *(["--spark-master", "local[2]"] if engine == "spark" else []), *extra]  # fmt: skip
    res = CliRunner().invoke(app, args)
    return res, (json.loads(out.read_text()) if res.exit_code == 0 else None)


EXTRA = ("--confidence", "all", "--curve-points", "11")
