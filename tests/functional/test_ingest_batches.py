"""A large run JSON is decoded in batches while it is stored (formats/phq8_json/batched.py):
the stored rows, every message and the warehouse after a refusal are those of the file parsed
whole. Here the batches are made tiny (typed.BATCH_BYTES), so that the fixtures are split into
many, and each test runs twice: the batches decoded on the ingest's thread, and by child
processes (decoders.py, as a large file's are)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from riskcov.formats.phq8_json import decoders, store, typed

TABLES = ("participants", "items", "item_signals", "metrics", "rc_points")
WHOLE, TINY = 2**40, 600  # batch sizes in bytes: the whole list; about one participant


@pytest.fixture(params=["thread", "processes"])
def batch_size(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """`batch_size["set"](n)` sets the batch size; `batch_size["inserts"]` counts the batches
    stored by store.fill_batches. The batches are decoded on the ingest's thread, or by child
    processes ("processes": whenever there is more than one batch)."""
    monkeypatch.setattr(decoders, "PROCESS_BYTES", 0 if request.param == "processes" else 2**62)
    state: dict[str, Any] = {"inserts": 0, "fallbacks": 0, "started": []}
    state["processes"] = request.param == "processes"
    insert, delete, start = store._insert, store.delete_rows, decoders._start

    def counted(*args: Any) -> None:
        state["inserts"] += 1
        insert(*args)

    def fallback(*args: Any) -> None:  # a refused batch: the full checker runs on the file
        state["fallbacks"] += 1
        delete(*args)

    def started() -> Any:
        proc, conn = start()
        state["started"].append(proc)
        return proc, conn

    monkeypatch.setattr(store, "_insert", counted)
    monkeypatch.setattr(store, "delete_rows", fallback)
    monkeypatch.setattr(decoders, "_start", started)
    state["set"] = lambda value: monkeypatch.setattr(typed, "BATCH_BYTES", value)
    yield state
    if request.param == "thread":
        assert not state["started"]
    assert all(proc.poll() is not None for proc in state["started"])  # ended with the ingest


def _public30(shared_dir: Path) -> dict[str, Any]:
    return json.loads((shared_dir / "fixtures" / "runs" / "public30.json").read_text())


def _write(folder: Path, doc: Any, name: str = "run.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(doc))
    return path


def _rows(sql: Any, warehouse: Path) -> dict[str, list[tuple[Any, ...]]]:
    return {t: sql(warehouse, f"SELECT * EXCLUDE (experiment_id) FROM {t} ORDER BY rowid") for t in TABLES}


def _ingest(run_cli: Any, batch_size: dict[str, Any], size: int, path: Path, warehouse: Path) -> Any:
    batch_size["set"](size)
    batch_size["inserts"] = 0
    return run_cli(["ingest", path, "--warehouse", warehouse, "--no-publish"])


@pytest.mark.parametrize("name", ["public30.json", "worked_example.json", "public_continuous.json"])
def test_batches_store_the_rows_of_the_whole_file(name, shared_dir, tmp_path, run_cli, sql, batch_size):
    path = shared_dir / "fixtures" / "runs" / name
    whole, tiny = tmp_path / "whole.duckdb", tmp_path / "tiny.duckdb"
    first = _ingest(run_cli, batch_size, WHOLE, path, whole)
    assert first.exit_code == 0, first.stderr
    experiments = sql(whole, "SELECT count(*) FROM experiments")[0][0]
    assert batch_size["inserts"] == experiments  # a small file: decoded while parsed, one insert each
    second = _ingest(run_cli, batch_size, TINY, path, tiny)
    assert second.exit_code == 0, second.stderr
    n_participants = sql(tiny, "SELECT count(*) FROM participants")[0][0]
    assert batch_size["inserts"] > n_participants / 2  # about one participant a batch
    assert second.stdout == first.stdout  # the summary counts the batches' rows
    assert _rows(sql, tiny) == _rows(sql, whole)
    assert batch_size["fallbacks"] == 0  # the batches' own columns, not the full checker's
    # one set of processes per file, started while it is parsed: the whole file's unused (decoded
    # in the parse), the batches' taken by the store
    assert len(batch_size["started"]) == (2 * decoders.PROCESSES if batch_size["processes"] else 0)


def _bad(doc: dict[str, Any]) -> dict[str, Any]:
    """public30 with two problems late in its second experiment, the first in file order:
    participant 1020's Sleep prediction."""
    doc = copy.deepcopy(doc)
    people = doc["experiments"][1]["results"]["results"]
    people[20]["predicted_items"]["Sleep"] = 7
    people[25]["ground_truth_items"]["Tired"] = None
    return doc


def test_a_problem_in_a_later_batch_is_named_as_in_the_whole_file(
    shared_dir, tmp_path, run_cli, batch_size, take_snapshot
):
    warehouse = tmp_path / "w.duckdb"
    good = shared_dir / "fixtures" / "runs" / "worked_example.json"
    assert run_cli(["ingest", good, "--warehouse", warehouse]).exit_code == 0
    before = take_snapshot(warehouse)
    path = _write(tmp_path, _bad(_public30(shared_dir)))
    problem = "experiment few_shot: participant 1020: predicted_items.Sleep = 7 is not 0..3 or null"
    expected = f"error: {path}: {problem}\n"
    for size in (WHOLE, TINY):
        result = _ingest(run_cli, batch_size, size, path, warehouse)
        assert (result.exit_code, result.stdout, result.stderr) == (1, "", expected)
        assert take_snapshot(warehouse) == before
    assert batch_size["inserts"] > 30  # the first experiment and part of the second were stored


def test_a_participant_id_repeated_in_another_batch_is_refused(shared_dir, tmp_path, run_cli, batch_size):
    doc = _public30(shared_dir)
    people = doc["experiments"][0]["results"]["results"]
    people[27]["participant_id"] = people[2]["participant_id"]
    path = _write(tmp_path, doc)
    result = _ingest(run_cli, batch_size, TINY, path, tmp_path / "w.duckdb")
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {path}: experiment zero_shot: participant {people[2]['participant_id']}: "
        "participant_id is duplicated in this experiment\n"
    )
    assert batch_size["inserts"] > 20


def test_a_later_batch_the_decoder_refuses_is_stored_by_the_full_checker(
    shared_dir, tmp_path, run_cli, sql, batch_size
):
    """An object as a failed participant's error is valid, but the typed decoder leaves it to
    the full checker: the batches stored before it are replaced, not kept twice."""
    doc = _public30(shared_dir)
    failed = [p for p in doc["experiments"][1]["results"]["results"] if not p["success"]]
    failed[-1]["error"] = {"code": 504, "text": "timeout"}
    path = _write(tmp_path, doc)
    whole, tiny = tmp_path / "whole.duckdb", tmp_path / "tiny.duckdb"
    first = _ingest(run_cli, batch_size, WHOLE, path, whole)
    second = _ingest(run_cli, batch_size, TINY, path, tiny)
    assert (first.exit_code, second.exit_code) == (0, 0)
    assert batch_size["inserts"] > 30
    assert second.stdout == first.stdout
    assert "60 participants" in second.stdout
    assert _rows(sql, tiny) == _rows(sql, whole)
    stored = sql(tiny, "SELECT error FROM participants WHERE error LIKE '{%'")
    assert stored == [('{"code": 504, "text": "timeout"}',)]


def test_a_run_id_taken_names_a_problem_of_the_file_first(shared_dir, tmp_path, run_cli, batch_size):
    """As when the file is parsed whole: its own problem, not the run_id conflict."""
    warehouse = tmp_path / "w.duckdb"
    doc = _public30(shared_dir)
    assert _ingest(run_cli, batch_size, WHOLE, _write(tmp_path, doc, "a.json"), warehouse).exit_code == 0
    bad = _write(tmp_path, _bad(doc), "b.json")
    messages = [_ingest(run_cli, batch_size, size, bad, warehouse).stderr for size in (WHOLE, TINY)]
    assert messages[0] == messages[1]
    assert "participant 1020: predicted_items.Sleep = 7" in messages[1]
    fine = copy.deepcopy(doc)
    fine["run_metadata"]["note"] = "the same run_id, other content"
    conflict = _ingest(run_cli, batch_size, TINY, _write(tmp_path, fine, "c.json"), warehouse)
    assert "is already ingested from" in conflict.stderr


def test_the_batches_are_stored_on_one_duckdb_thread_and_the_setting_is_restored(
    shared_dir, tmp_path, monkeypatch
):
    """DuckDB runs on one thread while the batches are inserted (the decoding has the other
    core), and on as many as before once the fill ends, here by a refusal in the second batch."""
    from riskcov.errors import InputError
    from riskcov.evaluation.prepared_warehouse import open_warehouse

    seen: list[str] = []
    insert = store._insert

    def spied(con: Any, *args: Any) -> None:
        seen.append(str(con.execute("SELECT current_setting('threads')").fetchone()[0]))
        insert(con, *args)

    monkeypatch.setattr(store, "_insert", spied)
    rows = typed.typed_rows((shared_dir / "fixtures" / "runs" / "public30.json").read_bytes()).rows[0]

    def batches() -> Any:
        yield rows
        raise InputError("the second batch is refused")

    with open_warehouse(tmp_path / "w.duckdb") as con:
        con.execute("SET threads = 3")
        con.execute("BEGIN")
        con.execute(
            "INSERT INTO runs (run_id, source_path, sha256, ingested_at, run_metadata, input_format, "
            "riskcov_version) VALUES ('r', 'p', 's', now()::TIMESTAMP, '{}', 'x', 'v')"
        )
        con.execute(
            "INSERT INTO experiments (experiment_id, run_id, experiment_index, item_names, score_min, "
            "score_max, loss_kind) VALUES (1, 'r', 1, ['a'], 0, 3, 'abs_error')"
        )
        with pytest.raises(InputError, match="second batch"):
            store.fill_batches(con, [1], [batches()])
        assert seen == ["1"]
        assert con.execute("SELECT current_setting('threads')").fetchone() == (3,)
        con.execute("ROLLBACK")


@pytest.mark.parametrize("at", [0, 1, 29])
def test_a_problem_in_the_first_batches_is_named_as_in_the_whole_file(
    at, shared_dir, tmp_path, run_cli, batch_size, take_snapshot
):
    """The first batch (decoded by the ingest while the processes start), the second (the first a
    process decodes) and the last of the first experiment."""
    warehouse = tmp_path / "w.duckdb"
    good = shared_dir / "fixtures" / "runs" / "worked_example.json"
    assert run_cli(["ingest", good, "--warehouse", warehouse]).exit_code == 0
    before = take_snapshot(warehouse)
    doc = _public30(shared_dir)
    person = doc["experiments"][0]["results"]["results"][at]
    person["ground_truth_items"] = {**person["ground_truth_items"], "Appetite": 4}
    path = _write(tmp_path, doc)
    results = [_ingest(run_cli, batch_size, size, path, warehouse) for size in (WHOLE, TINY)]
    assert results[0].exit_code == results[1].exit_code == 1
    assert results[1].stderr == results[0].stderr
    pid = person["participant_id"]
    assert f"experiment zero_shot: participant {pid}: ground_truth_items.Appetite = 4" in results[1].stderr
    assert take_snapshot(warehouse) == before
