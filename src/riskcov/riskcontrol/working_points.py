"""docs/metrics.md's working points of per-sample arrays, as the threshold rules of
docs/risk-control.md read them (riskcontrol/rules.py): one per distinct confidence, most
confident first, computed by the same SQL macros `evaluate` reads its points from.

>>> pts = Points(np.array([0.9, 0.5]), np.array([2, 4]), np.array([1.0, 3.0]), n_total=4)
>>> pts.coverage.tolist(), pts.risk.tolist()
([0.5, 1.0], [0.5, 0.75])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np

from riskcov.errors import InputError
from riskcov.warehouse.duckdb_helpers import temp_table

FloatArray = np.ndarray[Any, np.dtype[np.float64]]
IntArray = np.ndarray[Any, np.dtype[np.int64]]
BoolArray = np.ndarray[Any, np.dtype[np.bool_]]


@dataclass(frozen=True)
class Points:
    """Working points in plateau order: thresholds strictly falling, counts strictly rising.

    `loss_cum` is the accepted loss sum (losses ≥ 0, so non-decreasing); `n_total` is N,
    every cal sample including abstentions.
    """

    threshold: FloatArray
    k_cum: IntArray
    loss_cum: FloatArray
    n_total: int

    def __post_init__(self) -> None:
        j = len(self.threshold)
        if len(self.k_cum) != j or len(self.loss_cum) != j:
            raise ValueError("threshold, k_cum and loss_cum must have one entry per working point")
        if j and not (
            np.all(np.diff(self.threshold) < 0)
            and self.k_cum[0] >= 1
            and np.all(np.diff(self.k_cum) > 0)
            and self.k_cum[-1] <= self.n_total
            and self.loss_cum[0] >= 0
            and np.all(np.diff(self.loss_cum) >= 0)
        ):
            raise ValueError(
                "working points must be in plateau order with 1 <= k_cum <= n_total "
                "rising and loss_cum >= 0 not falling"
            )

    @property
    def coverage(self) -> FloatArray:
        return self.k_cum / self.n_total

    @property
    def risk(self) -> FloatArray:
        return self.loss_cum / self.k_cum


def check_samples(confidences: FloatArray, losses: FloatArray, abstained: BoolArray) -> None:
    """One entry per sample in each array, and a finite confidence for every sample not abstained."""
    if not len(confidences) == len(losses) == len(abstained):
        raise ValueError("confidences, losses and abstained must have one entry per sample")
    bad = np.flatnonzero(~abstained & ~np.isfinite(confidences))
    if bad.size:
        raise InputError(
            f"sample {int(bad[0])} is not abstained but its confidence is {float(confidences[bad[0]])!r}"
        )


Samples = tuple[FloatArray, FloatArray, BoolArray]  # confidences, losses, abstained


def working_points(
    con: duckdb.DuckDBPyConnection, confidences: FloatArray, losses: FloatArray, abstained: BoolArray
) -> Points:
    """docs/metrics.md's working points of per-sample arrays (abstained samples only count in
    N): `working_points_of` for one experiment."""
    return working_points_of(con, [(confidences, losses, abstained)])[0]


def working_points_of(con: duckdb.DuckDBPyConnection, experiments: Sequence[Samples]) -> list[Points]:
    """The working points of several sets of per-sample arrays in one query (an experiment's
    cal split and its halves), by the SQL macro rc_points_point_estimate: the rc_* macros
    `evaluate` reads its points from (installed on `con`), each set a series, each sample its
    own participant. (A continuous loss's running sums are exact to far below a double's last
    bit for any set of series, as evaluate's CSFs are summed together.)"""
    for confidences, losses, abstained in experiments:
        check_samples(confidences, losses, abstained)
    if not experiments:
        return []
    abstained = np.concatenate([a for _, _, a in experiments]).astype(bool)
    temp_table(
        con,
        "_rc_cal_scored",
        {
            "series": np.repeat(np.arange(len(experiments)), [len(c) for c, _, _ in experiments]),
            "participant_id": np.concatenate([np.arange(len(c), dtype=np.int64) for c, _, _ in experiments]),
            "confidence": np.where(abstained, 0.0, np.concatenate([c for c, _, _ in experiments])),
            "loss": np.where(abstained, 0.0, np.concatenate([x for _, x, _ in experiments])),
            "abstained": abstained,
        },
        # one population per series: each experiment's samples are its own participants
        "series, series AS population, participant_id, 0 AS item_index, "
        "CASE WHEN abstained THEN NULL ELSE confidence END AS confidence, "
        "CASE WHEN abstained THEN NULL ELSE loss END AS loss, 1.0::DOUBLE AS loss_scale",
    )
    try:
        got = con.execute(
            "SELECT series, threshold, k_cum, l_cum FROM rc_points_point_estimate('_rc_cal_scored') "
            "ORDER BY series, plateau"
        ).fetchnumpy()
    finally:
        con.execute("DROP TABLE IF EXISTS _rc_cal_scored")
    out = []
    for i, (confidences, _, _) in enumerate(experiments):
        mine = got["series"] == i
        out.append(
            Points(
                got["threshold"][mine].astype(np.float64),
                got["k_cum"][mine].astype(np.int64),
                got["l_cum"][mine].astype(np.float64),
                len(confidences),
            )
        )
    return out
