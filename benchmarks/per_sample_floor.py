"""What plain numpy needs per bootstrap replicate of a 1 M-sample per-sample run (issue 8, item 6).

    python benchmarks/per_sample_floor.py [--samples N] [--replicates B]

The comparator for `evaluate --bootstrap-resamples 1000` on benchmarks/per_sample_1m.py's run:
three score columns like its own (continuous, 3 decimals, 0..10), 0/1 losses, every sample its
own cluster. Per replicate it draws the docs/metrics.md multiplicities (one `randint` row of N, a
`bincount`) and, per score column, the working points (multiplicities in the column's
confidence order, two cumulative sums read at the plateaus' ends) and two areas (AURC and
AUGRC, plateau trapezoids) — a lower bound on the work: none of the grid metrics, the oracle
or the interpolated area. Prints wall and CPU milliseconds per replicate, one core.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--replicates", type=int, default=10)
    args = parser.parse_args()
    n, rng = args.samples, np.random.RandomState(0)
    scores = [rng.rand(n), np.round(rng.rand(n), 3), rng.randint(0, 11, n).astype(float)]
    loss = (rng.rand(n) < 0.2).astype(float)
    columns = []
    for score in scores:
        order = np.argsort(-score, kind="stable")
        ends = np.append(np.flatnonzero(np.diff(score[order]) != 0), n - 1)
        columns.append((order, ends, loss[order]))
    draws = np.random.RandomState(42)
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(args.replicates):
        m = np.bincount(draws.randint(0, n, size=n), minlength=n).astype(float)
        for order, ends, ordered_loss in columns:
            mo = m[order]
            k, lsum = np.cumsum(mo)[ends], np.cumsum(mo * ordered_loss)[ends]
            keep = np.diff(np.concatenate([[0.0], k])) > 0
            k, lsum = k[keep], lsum[keep]
            c = np.concatenate([[0.0], k / n])
            r = lsum / k
            r = np.concatenate([[r[0]], r])
            g = np.concatenate([[0.0], lsum / n])
            w = np.diff(c)
            float(np.sum(w * (r[1:] + r[:-1]) / 2) + np.sum(w * (g[1:] + g[:-1]) / 2))
    per_wall = (time.perf_counter() - wall) / args.replicates * 1000
    per_cpu = (time.process_time() - cpu) / args.replicates * 1000
    print(
        f"numpy, {n:,} samples x {len(scores)} scores, per replicate: "
        f"{per_wall:.0f} ms wall, {per_cpu:.0f} ms CPU"
    )


if __name__ == "__main__":
    main()
