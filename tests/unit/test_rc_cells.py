"""rc_cells (docs/metrics.md) straight on the macro: one row per series, participant and distinct
confidence with its counts and loss sum, its plateau (the dense rank of the confidence, most
confident first, abstentions last) and whether another participant's cell has the same
confidence, against a plain-Python oracle; NULL confidences (abstained units) included."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sql_support import rc_macro_connection

from hypothesis_profiles import examples

CONFIDENCE = st.none() | st.sampled_from([0.9, 0.5, 0.25, -1.0])
ROW = st.tuples(st.integers(0, 2), st.integers(0, 4), CONFIDENCE, st.integers(0, 3))


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    c = rc_macro_connection()
    yield c
    c.close()


def oracle(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """(series, participant, confidence) -> (n_items, n_pred, loss_sum, plateau, shared)."""
    cells: dict[tuple[Any, ...], list[int]] = {}
    for series, pid, conf, loss in rows:
        cell = cells.setdefault((series, pid, conf), [0, 0, 0])
        cell[0] += 1
        if conf is not None:  # abstained: no prediction, no loss
            cell[1] += 1
            cell[2] += loss
    levels = {
        s: sorted({c for (t, _, c) in cells if t == s}, key=lambda c: (c is None, -(c or 0.0)))
        for s in {k[0] for k in cells}
    }
    owners = Counter((s, c) for (s, _, c) in cells)
    return [
        (s, p, c, n, k, float(total), levels[s].index(c) + 1, owners[(s, c)] > 1)
        for (s, p, c), (n, k, total) in cells.items()
    ]


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(ROW, min_size=1, max_size=25))
def test_cells_plateaus_and_shared_match_the_oracle(con: duckdb.DuckDBPyConnection, rows) -> None:
    con.execute(
        "CREATE OR REPLACE TEMP TABLE sc (series INTEGER, population INTEGER, participant_id BIGINT, "
        "item_index INTEGER, confidence DOUBLE, loss DOUBLE, loss_scale DOUBLE)"
    )
    con.executemany(
        "INSERT INTO sc VALUES (?, 0, ?, ?, ?, ?, 1.0)",
        [(s, p, i, c, None if c is None else float(loss)) for i, (s, p, c, loss) in enumerate(rows)],
    )
    got = con.execute(
        "SELECT series, participant_id, confidence, n_items, n_pred, loss_sum, plateau, shared "
        "FROM rc_cells('sc')"
    ).fetchall()
    assert sorted(got, key=repr) == sorted(oracle(rows), key=repr)


@pytest.mark.parametrize(
    ("order", "samples_order"),
    [
        ("participant_id", "participant_id"),
        ("participant_id DESC", "participant_id DESC"),
        ("confidence, participant_id", "participant_id"),
    ],
)
def test_negative_zero_confidences_give_a_positive_zero_whatever_the_row_order(
    con: duckdb.DuckDBPyConnection, order: str, samples_order: str
) -> None:
    # a plateau holding 0.0 and -0.0 (equal, so one plateau) kept whichever sign came first
    con.execute(
        "CREATE OR REPLACE TEMP TABLE sc AS SELECT * FROM (VALUES "
        "(0, 0, 1::BIGINT, 0, -0.0::DOUBLE, 1.0::DOUBLE, 1.0::DOUBLE), (0, 0, 2, 0, 0.0, 0.0, 1.0), "
        "(0, 0, 3, 0, -0.0, 1.0, 1.0), (0, 0, 4, 0, 0.5, 0.0, 1.0), (1, 0, 1, 0, -0.0, 1.0, 1.0)) "
        "AS t(series, population, participant_id, item_index, confidence, loss, loss_scale) "
        f"ORDER BY {order}"
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE sm AS SELECT 0 AS replicate, participant_id, 1 AS multiplicity "
        f"FROM (SELECT DISTINCT participant_id FROM sc) ORDER BY {samples_order}"
    )
    con.execute("CREATE OR REPLACE TEMP TABLE ce AS FROM rc_cells('sc')")
    cells = con.execute(
        "SELECT series, participant_id, CAST(confidence AS VARCHAR), plateau, shared FROM ce "
        "ORDER BY series, participant_id"
    ).fetchall()
    assert cells == [
        (0, 1, "0.0", 2, True),
        (0, 2, "0.0", 2, True),
        (0, 3, "0.0", 2, True),
        (0, 4, "0.5", 1, False),
        (1, 1, "0.0", 1, False),
    ]
    increments = con.execute(
        "SELECT series, plateau, CAST(threshold AS VARCHAR), k, l FROM rc_plateaus('sc', 'ce', 'sm') "
        "ORDER BY series, plateau"
    ).fetchall()
    assert increments == [(0, 1, "0.5", 1, 0.0), (0, 2, "0.0", 3, 2.0), (1, 1, "0.0", 1, 1.0)]
