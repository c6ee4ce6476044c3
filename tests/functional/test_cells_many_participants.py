"""The shape rule (metrics/cells.py) with many participants: a replicate's multiplicities are
one column per participant (list_value over P columns), a cost per replicate that grows with P
whatever the plateaus, which the rule (P x plateaus against the predicted cells) leaves out.
Per-sample data without a cluster column (a participant per sample) with few distinct
confidences passes it up to 8,191 samples with 0/1 losses, and without bound when every loss
is 0, where the chunked path is several times faster per replicate; so the rule caps P
(cells.MAX_PARTICIPANTS)."""

from __future__ import annotations

import numpy as np

import riskcov
from riskcov.metrics import cells


def test_ten_thousand_participants_take_the_chunked_path(monkeypatch):
    chosen: list[bool] = []
    plan = cells.plan

    def spy(*args, **kwargs):
        found = plan(*args, **kwargs)
        chosen.append(found is not None)
        return found

    monkeypatch.setattr(cells, "plan", spy)
    n = 10_000
    rng = np.random.default_rng(7)
    data = {"confidence": np.round(rng.random(n), 1), "loss": np.zeros(n)}  # a participant per sample
    riskcov.evaluate(data, resamples=2, confidence="confidence")
    assert chosen == [False]
