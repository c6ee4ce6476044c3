"""The bootstrap through whole evaluations: the same seed gives the same artifact whatever the
chunking, and one DuckDB thread gives the same bits as many (docs/metrics.md)."""

from __future__ import annotations

import json


def _artifact(paired_artifact, name: str, **overrides) -> dict:
    return paired_artifact(name, participants=23, run_seed=3, bootstrap_resamples=150, seed=9, **overrides)


def test_same_seed_gives_the_same_artifact_and_records_it(paired_artifact):
    first = _artifact(paired_artifact, "a", chunk_replicates=150)
    second = _artifact(paired_artifact, "b", chunk_replicates=7)  # other chunking, same numbers
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    boot = first["confidence_variants"]["llm"]["input_0"]["bootstrap"]
    assert (boot["seed"], boot["n_resamples"]) == (9, 150)
    assert first["options"]["seed"] == 9


def _numbers(obj, path=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _numbers(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _numbers(v, (*path, i))
    elif isinstance(obj, float):
        yield path, obj


def test_one_duckdb_thread_gives_the_same_numbers(paired_artifact, monkeypatch):
    default = dict(_numbers(_artifact(paired_artifact, "many")))
    import riskcov.warehouse.connection as wh

    real_connect = wh.connect

    def one_thread(path, *, read_only=False):
        con = real_connect(path, read_only=read_only)
        con.execute("SET threads = 1")
        return con

    monkeypatch.setattr(wh, "connect", one_thread)
    single = dict(_numbers(_artifact(paired_artifact, "one")))
    # every sum is exact or runs on one thread in point order: the same bits, not only close
    assert single == default
