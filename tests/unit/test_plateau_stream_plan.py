"""stream_plan.plan's bound for the packed stream (packing_unit): per streamed series the
largest cell loss when every cell's loss is >= 0, else None (the two running sums)."""

from __future__ import annotations

import duckdb

from riskcov.metrics import stream_plan


def test_largest_loss_per_series_none_with_a_negative_loss(monkeypatch):
    monkeypatch.setattr(stream_plan, "STREAM_MIN_CELLS", 0)
    con = duckdb.connect()
    # two continuous series (a plateau per cell, so both streamed) over participants 1..4
    cells = [(0, p, 1.0 - p / 10, 1, [0.0, 2.0, 1.0, 0.0][p - 1], p) for p in range(1, 5)]
    cells += [(1, p, 1.0 - p / 10, 1, [1.0, -1.0, 0.0, 3.0][p - 1], p) for p in range(1, 5)]
    con.execute(
        "CREATE TABLE eval_cells (series INTEGER, plateau BIGINT, confidence DOUBLE, n_pred BIGINT, "
        "loss_sum DOUBLE, participant_id BIGINT)"
    )
    con.executemany("INSERT INTO eval_cells VALUES (?, ?, ?, ?, ?, ?)", cells)
    con.execute(
        "CREATE TABLE eval_people AS SELECT 0 AS population, range AS participant_id, true AS all_integral "
        "FROM range(1, 5)"
    )
    con.execute(
        "CREATE TABLE eval_losses AS SELECT 0 AS population, range AS participant_id, 0.0 AS loss "
        "FROM range(1, 5)"
    )
    plan = stream_plan.plan(con, [1, 2, 3, 4])
    assert plan is not None and [s for s, _ in plan.streamed] == [0, 1]
    assert plan.largest_loss == {0: 2.0, 1: None}
    # at most 4 drawn cells of loss <= 2: l_cum <= 8, and the unit is the power of two above it
    assert stream_plan.packing_unit(4, plan.largest_loss[0]) == 16
    assert stream_plan.packing_unit(4, plan.largest_loss[1]) is None
