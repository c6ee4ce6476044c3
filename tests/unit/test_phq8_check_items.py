"""store.check_items: once an experiment's rows are stored, the first participant (in id
order) whose stored items are not one per item name (successful) or none (failed) is refused,
named with its count and the count expected; other experiments' rows are not counted."""

from __future__ import annotations

import duckdb
import pytest

from riskcov.errors import InputError
from riskcov.formats.phq8_json.store import check_items
from riskcov.warehouse.migrations import migrate

NAMES = ["a", "b", "c"]


def _warehouse(people: list[tuple[int, bool, int]], other_items: int = 0) -> duckdb.DuckDBPyConnection:
    """Experiment 1 with three item names and (participant_id, success, items stored) rows;
    experiment 2 holds `other_items` items of participant 1 (never counted for experiment 1)."""
    con = duckdb.connect()
    migrate(con)
    con.execute("INSERT INTO runs VALUES ('r', 'x', 's', now()::TIMESTAMP, NULL, NULL, '{}', 'x', 'x')")
    for eid, names in ((1, NAMES), (2, ["a", "b", "c", "d", "e"])):
        con.execute(
            "INSERT INTO experiments (experiment_id, run_id, experiment_index, item_names, score_min, "
            "score_max) VALUES (?, 'r', ?, ?, 0, 3)",
            [eid, eid, names],
        )
    for pid, success, n in people:
        con.execute("INSERT INTO participants VALUES (1, ?, ?, NULL, false)", [pid, success])
        for k in range(n):
            con.execute("INSERT INTO items VALUES (1, ?, ?, 'a', 1, 1)", [pid, k])
    con.execute("INSERT INTO participants VALUES (2, 1, true, NULL, false)")
    for k in range(other_items):
        con.execute("INSERT INTO items VALUES (2, 1, ?, 'a', 1, 1)", [k])
    return con


def oracle(people: list[tuple[int, bool, int]]) -> str | None:
    """The message for the first participant by id whose count is off, computed plainly."""
    for pid, success, n in sorted(people):
        expected = len(NAMES) if success else 0
        if n != expected:
            return f"participant {pid}: {n} items stored, expected {len(NAMES)}"
    return None


@pytest.mark.parametrize(
    "people",
    [
        [(1, True, 3), (2, False, 0), (7, True, 3)],  # every count right
        [(5, True, 3), (3, True, 2), (9, True, 1)],  # too few: the lowest id, not the first row
        [(4, True, 3), (2, False, 1)],  # a failed participant with an item
        [(8, True, 0), (6, True, 3)],  # a successful participant with none
        [(1, False, 0)],  # only failed participants, none stored
    ],
)
def test_check_items_names_the_first_participant_off_by_id(people):
    con = _warehouse(people, other_items=5)
    expected = oracle(people)
    if expected is None:
        check_items(con, 1)
    else:
        with pytest.raises(InputError) as caught:
            check_items(con, 1)
        assert str(caught.value) == expected
