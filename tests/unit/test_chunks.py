"""Replicate chunks on several connections at once (metrics/chunks.py): every chunk once, the
first on the caller's connection while the others take the next ones, the shared tables
visible to every worker, errors and transactions handled. The artifacts of whole evaluations
run on several connections: tests/functional/test_chunks_artifacts.py."""

from __future__ import annotations

import json
import threading
import time

import duckdb
import pytest

from riskcov.metrics import chunks


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    c = duckdb.connect()
    c.execute("SET threads = 2")
    for table in chunks.SHARED:
        c.execute(f"CREATE TEMP TABLE {table} AS SELECT 7 AS x")
    return c


def _record(seen: list, fail_at: int | None = None):
    def work(cur: duckdb.DuckDBPyConnection, chunk: int) -> None:
        if chunk == fail_at:
            raise ValueError(f"chunk {chunk}")
        shared = [cur.execute(f"SELECT x FROM {t}").fetchall() for t in chunks.SHARED]
        seen.append((chunk, id(cur), threading.get_ident(), shared))
        time.sleep(0.01)  # long enough for the other worker to take chunks too

    return work


def test_every_chunk_once_first_on_the_callers_connection(con):
    seen: list = []
    chunks.run(con, iter(range(12)), _record(seen), workers=2)
    assert sorted(c for c, *_ in seen) == list(range(12))
    assert [s[:3] for s in seen if s[0] == 0] == [(0, id(con), threading.get_ident())]
    assert len({cur for _, cur, _, _ in seen}) == 2  # both connections worked
    assert {json.dumps(s) for *_, s in seen} == {json.dumps([[[7]]] * len(chunks.SHARED))}
    # the setting and the attached database are as before
    assert con.execute("SELECT current_setting('threads')").fetchall() == [(2,)]
    assert con.execute(
        "SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE 'riskcov_chunks%'"
    ).fetchall() == [(0,)]


def test_the_other_workers_take_chunks_while_the_first_runs(con):
    others_started = threading.Event()
    during_first: list[bool] = []

    def work(cur: duckdb.DuckDBPyConnection, chunk: int) -> None:
        if chunk == 0:
            during_first.append(others_started.wait(timeout=10))
        else:
            others_started.set()

    chunks.run(con, iter(range(3)), work, workers=2)
    assert during_first == [True]


def test_an_error_in_the_first_chunk_stops_the_others_and_is_raised(con):
    seen: list = []

    def work(cur: duckdb.DuckDBPyConnection, chunk: int) -> None:
        if chunk == 0:
            time.sleep(0.05)  # the other worker takes chunks meanwhile
            raise ValueError("first")
        seen.append(chunk)
        time.sleep(0.01)

    with pytest.raises(ValueError, match="first"):
        chunks.run(con, iter(range(200)), work, workers=2)
    assert 0 < len(seen) < 199  # the other worker had started, and stopped
    assert con.execute("SELECT current_setting('threads')").fetchall() == [(2,)]
    assert con.execute(
        "SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE 'riskcov_chunks%'"
    ).fetchall() == [(0,)]


def test_inside_a_transaction_every_chunk_runs_on_the_callers_connection(con):
    seen: list = []
    con.execute("BEGIN")
    chunks.run(con, iter(range(5)), _record(seen), workers=2)
    con.execute("COMMIT")
    assert [(c, cur) for c, cur, *_ in seen] == [(c, id(con)) for c in range(5)]


def test_an_error_in_a_worker_stops_the_run_and_is_raised(con):
    seen: list = []
    with pytest.raises(ValueError, match="chunk 6"):
        chunks.run(con, iter(range(40)), _record(seen, fail_at=6), workers=2)
    assert len(seen) < 39  # the others stopped
    assert con.execute("SELECT current_setting('threads')").fetchall() == [(2,)]
    assert con.execute(
        "SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE 'riskcov_chunks%'"
    ).fetchall() == [(0,)]


def test_an_error_drawing_a_chunk_in_a_worker_is_raised(con):
    seen: list = []

    def draws():
        yield from range(3)
        # the chunks already drawn run on both connections at once: let them be recorded
        # before the error interrupts the other connection's queries
        deadline = time.monotonic() + 10
        while len(seen) < 3 and time.monotonic() < deadline:
            time.sleep(0.001)
        raise MemoryError("drawing")

    with pytest.raises(MemoryError, match="drawing"):
        chunks.run(con, draws(), _record(seen), workers=2)
    assert sorted(c for c, *_ in seen) == [0, 1, 2]
    assert con.execute("SELECT current_setting('threads')").fetchall() == [(2,)]


def test_a_read_only_instance_runs_the_chunks_one_by_one(tmp_path):
    path = tmp_path / "ro.duckdb"
    duckdb.connect(str(path)).close()
    ro = duckdb.connect(str(path), read_only=True)
    for table in chunks.SHARED:
        ro.execute(f"CREATE TEMP TABLE {table} AS SELECT 7 AS x")
    seen: list = []
    chunks.run(ro, iter(range(4)), _record(seen), workers=2)
    assert [(c, cur) for c, cur, *_ in seen] == [(c, id(ro)) for c in range(4)]
