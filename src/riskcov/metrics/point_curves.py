"""Replicate 0's curves (the artifact's points of every series) from the working points in
TEMP TABLE eval_points, as metrics.engine keeps them: one list per column and series."""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np

Curves = dict[int, dict[str, list[Any]]]


def read(
    con: duckdb.DuckDBPyConnection,
    columns: tuple[str, ...],
    confidence_of: dict[tuple[int, float], float] | None,
) -> Curves:
    """Replicate 0's points of eval_points per series, `columns` as lists (a NULL as None),
    in plateau order, `threshold` among them; with `confidence_of` (item estimators), each
    threshold mapped to its item's confidence. Read by column and cut per series, not row by
    row: a per-sample series has a point per drawn sample."""
    cols = con.execute(
        f"SELECT series, {', '.join(columns)} FROM eval_points WHERE replicate = 0 ORDER BY series, plateau"
    ).fetchnumpy()
    sid = np.asarray(cols["series"]).astype(np.int64)
    out: Curves = {}
    if not len(sid):
        return out
    starts = np.flatnonzero(np.r_[True, sid[1:] != sid[:-1]])
    for a, b in zip(starts, [*starts[1:], len(sid)], strict=True):
        key = int(sid[a])
        curve = {k: np.ma.asarray(cols[k][a:b]).tolist() for k in columns}
        if confidence_of is not None:
            curve["threshold"] = [confidence_of[(key, t)] for t in curve["threshold"]]
        out[key] = curve
    return out
