"""Bootstrap bands of RC curves: every replicate's curve read on a fixed coverage grid in SQL
(sql/rc_curve_grid.sql over the engine's working points), then pointwise percentile intervals."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np

from riskcov.bootstrap.intervals import interval
from riskcov.scoring.scored import Series
from riskcov.warehouse.duckdb_helpers import temp_table

FloatArray = np.ndarray[Any, np.dtype[np.float64]]
GRID_POINTS = 100  # coverage 0.01, 0.02, ..., 1.00
VALUES = ("selective_risk", "generalized_risk")


def coverage_grid(points: int = GRID_POINTS) -> list[float]:
    """The band's coverages: k / points for k = 1..points.

    >>> coverage_grid(4)
    [0.25, 0.5, 0.75, 1.0]
    """
    return [k / points for k in range(1, points + 1)]


@dataclass
class Band:
    """Pointwise 95 % bounds of one series' replicate curves at each grid coverage (None above
    the point curve's Cmax)."""

    coverage: list[float]
    low: dict[str, list[float | None]]
    high: dict[str, list[float | None]]


@dataclass
class BandCollector:
    """Collects each replicate's grid values: pass it as `evaluate.run(after_chunk=...)`."""

    n_replicates: int
    grid: list[float] = field(default_factory=coverage_grid)
    series: list[Series] = field(default_factory=list)
    values: dict[str, FloatArray] = field(default_factory=dict)

    def __call__(self, con: duckdb.DuckDBPyConnection, series: list[Series]) -> None:
        """Read the grid values of the chunk in eval_points (replicate 0 included)."""
        self.series = series
        temp_table(con, "eval_curve_grid", {"coverage": np.asarray(self.grid, dtype=np.float64)})
        rows = con.execute(
            "SELECT series, replicate, coverage, selective_risk, generalized_risk "
            "FROM rc_curve_grid('eval_points', 'eval_curve_grid') ORDER BY series, replicate, coverage"
        ).fetchnumpy()
        shape = (max(s.index for s in series) + 1, self.n_replicates, len(self.grid))
        sid = rows["series"].astype(np.intp)
        rep = rows["replicate"].astype(np.intp)
        col = np.searchsorted(np.asarray(self.grid), rows["coverage"].astype(np.float64))
        for name in VALUES:
            arr = self.values.get(name)
            if arr is None:  # made once, not a (series x replicates x grid) array per chunk
                arr = self.values.setdefault(name, np.full(shape, np.nan))
            v = rows[name]
            arr[sid, rep, col] = np.ma.filled(v.astype(np.float64), np.nan) if np.ma.isMaskedArray(v) else v
        for s in series:  # aliases (llm = total_evidence) share the rows of the series computing them
            if s.computed != s.index:
                for arr in self.values.values():
                    arr[s.index] = arr[s.computed]

    def bands(self) -> dict[tuple[str, int], Band]:
        """(csf, input number) -> its band: docs/metrics.md percentile intervals (undefined replicates
        dropped) of the replicates' values at each grid coverage."""
        out: dict[tuple[str, int], Band] = {}
        for s in self.series:
            low: dict[str, list[float | None]] = {}
            high: dict[str, list[float | None]] = {}
            for name in VALUES:
                arr = self.values[name][s.index]
                bounds = [
                    interval(None if np.isnan(arr[0, g]) else float(arr[0, g]), arr[1:, g])[0]
                    for g in range(len(self.grid))
                ]
                low[name] = [b[0] if b else None for b in bounds]
                high[name] = [b[1] if b else None for b in bounds]
            out[(s.csf.name, s.input_no)] = Band(list(self.grid), low, high)
        return out
