"""A deterministic multi-seed per-sample example (docs/formats.md) for the risk-control suite.

    python scripts/make_samples_example.py OUT.parquet [--seed S] [--samples N]

Three methods of visibly different quality (`vanilla`, `posthoc-crc`, `crc-select`) x 5
seeds x splits `cal`/`test` x domains `id`/`ood`: per (method, seed, split) N samples
(default 10000), 80 % in-distribution and 20 % out-of-distribution. Columns: method, seed,
split, domain, sample_id, correct, prob (the predicted class's probability), confidence (the
method's selection score) and confidence_msp (the maximum softmax probability, shared
quality across methods). OOD samples are never correct. Scores are rounded to 3 decimals, so
ties occur and the Parquet file stays small. All randomness comes from one
`numpy.random.RandomState(seed)` drawn in a fixed order, so the same arguments always give
the same rows (DuckDB writes the file).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

# method: (mean ID margin, selector noise, mean OOD margin); a higher margin is a more
# accurate classifier, less noise a better ranking, a lower OOD margin fewer OOD accepted
METHODS = {
    "vanilla": (1.9, 1.1, 1.2),
    "posthoc-crc": (2.1, 0.8, 0.6),
    "crc-select": (2.3, 0.55, 0.0),
}
SEEDS = (42, 123, 456, 789, 999)
SPLITS = ("cal", "test")
OOD_SHARE = 0.2


def _sigmoid(x: np.ndarray[Any, np.dtype[np.float64]]) -> np.ndarray[Any, np.dtype[np.float64]]:
    return 1.0 / (1.0 + np.exp(-x))


def make_columns(seed: int = 0, samples: int = 10_000) -> dict[str, list[Any]]:
    """Every row of the example, as columns in file order (method, seed, split, domain)."""
    rs = np.random.RandomState(seed)
    cols: dict[str, list[Any]] = {
        k: []
        for k in (
            "method",
            "seed",
            "split",
            "domain",
            "sample_id",
            "correct",
            "prob",
            "confidence",
            "confidence_msp",
        )
    }
    n_ood = round(samples * OOD_SHARE)
    for method, (margin, noise, ood_margin) in METHODS.items():
        for s in SEEDS:
            shift = rs.normal(0.0, 0.08)  # seeds differ a little in quality
            for split in SPLITS:
                for domain, n, mu in (("id", samples - n_ood, margin + shift), ("ood", n_ood, ood_margin)):
                    z = rs.normal(mu, 1.0, n)
                    correct = (rs.uniform(size=n) < _sigmoid(z)) & (domain == "id")
                    msp = _sigmoid(0.8 * z + 0.6 + rs.normal(0.0, 0.9, n))
                    score = _sigmoid(z + rs.normal(0.0, noise, n))
                    cols["method"] += [method] * n
                    cols["seed"] += [s] * n
                    cols["split"] += [split] * n
                    cols["domain"] += [domain] * n
                    cols["sample_id"] += list(range(n))
                    cols["correct"] += correct.astype(int).tolist()
                    cols["prob"] += np.round(0.5 + 0.5 * msp, 3).tolist()
                    cols["confidence"] += np.round(score, 3).tolist()
                    cols["confidence_msp"] += np.round(msp, 3).tolist()
    return cols


def write(path: Path, cols: dict[str, list[Any]]) -> None:
    """The columns as a Parquet file (zstd), in their order."""
    con = duckdb.connect()
    try:
        con.register("example", {k: np.asarray(v) for k, v in cols.items()})
        con.execute(
            "CREATE TABLE t AS SELECT method, CAST(seed AS BIGINT) AS seed, split, domain, "
            "CAST(sample_id AS BIGINT) AS sample_id, CAST(correct AS TINYINT) AS correct, "
            "prob, confidence, confidence_msp FROM example"
        )
        con.execute(f"COPY t TO '{path}' (FORMAT parquet, COMPRESSION zstd)")
    finally:
        con.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--samples", type=int, default=10_000, help="per (method, seed, split)")
    args = parser.parse_args(argv)
    write(args.out, make_columns(args.seed, args.samples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
