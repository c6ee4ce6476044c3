"""Writing a macro's per-(series, replicate) column into an evaluation's Results, for the
metrics computed beside the engine's (metrics/balanced.py, metrics/cost_curves.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from riskcov.metrics.engine import Results
from riskcov.scoring.scored import Series


def put(
    res: Results, series: list[Series], name: str, sid: np.ndarray[Any, Any], rep: Any, values: Any
) -> None:
    """res.scalars[name][sid, rep] = values (NULLs as NaN); the array is made, all NaN, when
    this is its first chunk.

    >>> res, one = Results(3), [Series(0, 0, None, 0)]  # type: ignore[arg-type]
    >>> put(res, one, "x", np.array([0]), np.array([1]), np.ma.masked_array([1.0], [True]))
    >>> put(res, one, "x", np.array([0]), np.array([2]), np.array([0.5]))
    >>> res.scalars["x"].tolist()
    [[nan, nan, 0.5]]
    """
    shape = (max(s.index for s in series) + 1, res.n_replicates)
    arr = res.array(name, shape)
    arr[sid.astype(np.intp), rep] = np.ma.filled(np.ma.asarray(values).astype(np.float64), np.nan)
