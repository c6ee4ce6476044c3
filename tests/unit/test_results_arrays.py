"""Results.array: a metric's (series x replicates) array is made once per evaluation, however many
chunks write into it (metrics/scalars.put, the engine's put, the Spark engine's)."""

from __future__ import annotations

import numpy as np
import pytest

from riskcov.metrics import scalars
from riskcov.metrics.engine import Results
from riskcov.scoring.scored import Series


def test_every_chunk_writes_into_one_array_made_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made = []
    full = np.full

    def counting_full(*args, **kwargs):  # type: ignore[no-untyped-def]
        made.append(args[0])
        return full(*args, **kwargs)

    monkeypatch.setattr(np, "full", counting_full)
    res, series = Results(5), [Series(0, 0, None, 0), Series(1, 1, None, 0)]  # type: ignore[arg-type]
    for chunk in range(4):  # chunks of one replicate each, both series
        rep = np.array([chunk, chunk])
        scalars.put(res, series, "x", np.array([0, 1]), rep, np.array([chunk + 0.5, -chunk]))
    assert made == [(2, 5)]
    expected = np.array([[0.5, 1.5, 2.5, 3.5, np.nan], [0.0, -1.0, -2.0, -3.0, np.nan]])
    assert np.array_equal(res.scalars["x"], expected, equal_nan=True)


def test_the_array_is_the_one_already_there() -> None:
    res = Results(3)
    first = res.array("y", (1, 3))
    first[0, 1] = 7.0
    again = res.array("y", (1, 3))
    assert again is first
    assert np.array_equal(again, [[np.nan, 7.0, np.nan]], equal_nan=True)
