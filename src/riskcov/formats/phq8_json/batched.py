"""A large run JSON's participants decoded batch by batch while they are stored (store.py's
fill_batches): the ParsedRun whose `fill` does it, and falls back to the full checker.

The typed decoder (typed.py) is all or nothing: when any batch is refused, the rows stored so
far are deleted (inside the ingest's transaction) and the whole file goes through the full
checker, which names the first problem in file order or, when the file is fine after all,
gives the rows that are then stored. So the messages and the stored rows are those of a file
parsed whole.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from riskcov.errors import InputError, ResourceError
from riskcov.formats import FileProblem, ParsedRun
from riskcov.formats.phq8_json import decoders, typed
from riskcov.formats.phq8_json.columns import ExperimentRows
from riskcov.formats.phq8_json.document import gc_paused
from riskcov.formats.phq8_json.typed import Participants, Refused

if TYPE_CHECKING:  # a decoding process imports this package: neither DuckDB nor the store
    import duckdb

# an experiment's rows before they are decoded: parse's checks of the rest of the document
# see an experiment with no participants yet
_NONE = np.empty(0, dtype=np.int64)
PENDING = ExperimentRows({"participant_id": _NONE}, {"participant_id": _NONE}, {})


def parsed_run(
    path: Path, run: ParsedRun, lists: list[Participants], whole: Callable[[bytes], ParsedRun]
) -> ParsedRun:
    """`run` (parsed from the file `path`'s skeleton, every experiment PENDING) filled from
    `lists` (views into the file's bytes); `whole(data)` parses those bytes with the full
    checker (InputError naming the first problem)."""
    done: list[ParsedRun] = []  # the full checker's run, when it had to run

    def full() -> ParsedRun:
        try:
            done.append(whole(lists[0].data))
        except InputError as exc:
            raise FileProblem(str(exc)) from None
        return done[-1]

    def fill(con: duckdb.DuckDBPyConnection, ids: list[int]) -> None:
        from riskcov.formats.phq8_json import store

        try:
            with gc_paused():  # the decoded structs make no reference cycles
                pool = decoders.start() if sum(p.size for p in lists) > decoders.PROCESS_BYTES else None
                if pool is not None:
                    with pool:
                        store.store_batches(con, ids, pool.lean_batches(ids, lists, typed.BATCH_BYTES))
                else:
                    store.fill_batches(con, ids, [p.batches() for p in lists])
        except ResourceError as exc:
            raise ResourceError(f"{path}: {exc}") from None
        except Refused:
            store.delete_rows(con, ids)
            checked = full()
            checked.fill(con, ids)
            checked.rows.clear()  # stored: not needed while the metric tables are computed
        finally:
            for p in lists:
                p.data = b""  # the file's bytes: not needed while the metric tables are computed

    def check() -> None:
        try:
            for p in lists:
                for _ in p.batches():
                    pass
        except Refused:
            full()

    def recount() -> str:
        if done:
            return done[-1].summary
        participants, items = (sum(p.counts[k] for p in lists) for k in (0, 1))
        return f"{len(lists)} experiment(s), {participants} participants, {items} items"

    return dataclasses.replace(run, fill=fill, rows=[], recount=recount, check=check)
