"""The first chunk's lead (metrics/engine.chunk_sizes) at its edges: 0 and 3 replicates on two
workers, in chunks of 1 and of 2 (3 in chunks of 2 is the smallest case the lead moves: [1, 2]
instead of [2, 1]), give the one-connection artifact bit for bit."""

from __future__ import annotations

import json

import pytest

from riskcov.metrics import chunks, engine


@pytest.mark.parametrize("resamples", [0, 3])
def test_few_replicates_on_two_workers_give_the_one_worker_artifact(paired_artifact, monkeypatch, resamples):
    calls: list = []
    parallel = chunks._parallel

    def spy(con, cursors, first, it, work):
        calls.append(len(cursors))
        return parallel(con, cursors, first, it, work)

    monkeypatch.setattr(chunks, "_parallel", spy)
    sizes: list[list[int]] = []
    chunk_sizes = engine.chunk_sizes
    monkeypatch.setattr(
        engine, "chunk_sizes", lambda *a, **k: sizes.append(chunk_sizes(*a, **k)) or sizes[-1]
    )
    same = {"participants": 9, "run_seed": 11, "bootstrap_resamples": resamples, "seed": 3}
    one = json.dumps(paired_artifact(f"one{resamples}", **same, workers=1), sort_keys=True)
    assert calls == []
    for chunk in (1, 2):
        two = paired_artifact(f"two{resamples}-{chunk}", **same, chunk_replicates=chunk, workers=2)
        assert json.dumps(two, sort_keys=True) == one
    assert calls == [1, 1]  # both chunkings ran on the two-worker path
    assert sizes[-2:] == ([[], []] if resamples == 0 else [[1, 1, 1], [1, 2]])  # the lead moved one
