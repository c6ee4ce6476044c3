"""The plan of the "sort once" path (metrics/plateau_stream.py): which series stream and which
are summed per plateau first, their predicted cells stored once in plateau order with the
position of each cell's participant in the draw order, each replicate's multiplicities in that
order, and the unit that packs a streamed block's two running sums into one exact sum."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import duckdb
import numpy as np

# a series is streamed when every series of the evaluation has at least this many predicted
# cells: below it, one query per series and replicate costs more than the chunked path's sort
STREAM_MIN_CELLS = 50_000
# a series whose plateaus are fewer than this share of its cells is summed per plateau first
GROUP_PLATEAU_SHARE = 0.25
TABLES = ("eval_stream_cells", "eval_group_cells", "eval_stream_people", "eval_stream_losses")
IntArray = np.ndarray[Any, np.dtype[np.int64]]
# (draw position, participant_id) of each row of a stored table, in its stored order
Rows = tuple[IntArray, IntArray]


class Draws(Protocol):
    """A chunk of bootstrap replicates as multiplicity vectors (bootstrap.Draws, drawn a layer
    above): counts[i, j] is how many times replicate first + i draws participants[j]."""

    participants: IntArray
    first: int
    counts: IntArray

    def rows(self) -> tuple[IntArray, IntArray, IntArray]: ...


@dataclass
class Plan:
    """Which series take which path, and where each stored cell's participant is drawn."""

    participants: IntArray  # ids in draw order (bootstrap.Draws' columns)
    draw_order: IntArray  # argsort of participants
    streamed: list[tuple[int, Rows]]  # (series, its cells in eval_stream_cells)
    largest_loss: dict[int, float | None]  # per streamed series, packing_unit's bound
    grouped: list[int]  # series summed per plateau, stored together in eval_group_cells
    grouped_cells: Rows  # eval_group_cells
    people: Rows  # eval_stream_people (rc_people)
    losses: Rows  # eval_stream_losses (rc_loss_counts)


def plan(con: duckdb.DuckDBPyConnection, participants: list[int]) -> Plan | None:
    """Store the predicted cells (eval_cells) of every series in plateau order, and the
    per-participant sums (eval_people, eval_losses) in participant order (TABLES), and choose
    each series' path; None, and the tables empty, when a series has too few cells for the
    stream or a loss is not integer-valued (the stream's sums are plain sums)."""
    stats = con.execute(
        "SELECT series, count(*), count(DISTINCT plateau), "
        "(SELECT coalesce(bool_and(all_integral), true) FROM eval_people) "
        "FROM eval_cells WHERE n_pred > 0 GROUP BY series ORDER BY series"
    ).fetchall()
    if not stats or not stats[0][3] or min(int(cells) for _, cells, *_ in stats) < STREAM_MIN_CELLS:
        for table in TABLES:  # the chunked path: empty (metrics/chunks.py shares them all the same)
            con.execute(f"CREATE OR REPLACE TEMP TABLE {table} (participant_id BIGINT)")
        return None
    grouped = [int(s) for s, cells, plateaus, _ in stats if plateaus < GROUP_PLATEAU_SHARE * cells]
    streamed = [int(s) for s, *_ in stats if int(s) not in grouped]
    ids = np.asarray(participants, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    con.execute("SET preserve_insertion_order = true")  # the stored order is the streams'

    def store(table: str, query: str) -> Rows:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS {query}")
        pid = con.execute(f"SELECT participant_id FROM {table}").fetchnumpy()["participant_id"]
        return _draw_positions(ids, order, pid.astype(np.int64)), pid.astype(np.int64)

    def cells(series: list[int]) -> str:
        listed = ", ".join(str(s) for s in series) or "NULL"
        return (
            "SELECT series, plateau, confidence AS threshold, n_pred, loss_sum, participant_id "
            f"FROM eval_cells WHERE n_pred > 0 AND series IN ({listed}) "
            "ORDER BY series, plateau, participant_id"
        )

    stream_cells = store("eval_stream_cells", cells(streamed))
    series_of = con.execute("SELECT series FROM eval_stream_cells").fetchnumpy()["series"]
    lo, hi = (np.searchsorted(series_of, streamed, side=side) for side in ("left", "right"))
    per_series = [
        (s, (stream_cells[0][a:b], stream_cells[1][a:b])) for s, a, b in zip(streamed, lo, hi, strict=True)
    ]
    group_cells = store("eval_group_cells", cells(grouped))
    people = store("eval_stream_people", "FROM eval_people ORDER BY population, participant_id")
    losses = store("eval_stream_losses", "FROM eval_losses ORDER BY population, participant_id, loss")
    largest = {
        int(s): (float(high) if low >= 0 else None)
        for s, low, high in con.execute(
            "SELECT series, min(loss_sum), max(loss_sum) FROM eval_stream_cells GROUP BY series"
        ).fetchall()
    }
    return Plan(ids, order, per_series, largest, grouped, group_cells, people, losses)


def _draw_positions(ids: IntArray, order: IntArray, pid: IntArray) -> IntArray:
    """Each of `pid`'s position in `ids` (the draw order; order = its argsort). Ingest numbers
    clusters 1..C, so the ids are usually consecutive and a position is an offset; else
    sorted (a plain binary search) or neither (a search through the argsort, ~5 x slower on
    1 M ids).

    >>> ids = np.array([4, 5, 6]); _draw_positions(ids, np.argsort(ids), np.array([6, 4])).tolist()
    [2, 0]
    >>> ids = np.array([9, 2, 5]); _draw_positions(ids, np.argsort(ids), np.array([5, 9, 2])).tolist()
    [2, 0, 1]
    """
    if not len(ids) or not np.all(ids[1:] > ids[:-1]):
        return order[np.searchsorted(ids, pid, sorter=order)].astype(np.int64)
    if int(ids[-1]) - int(ids[0]) == len(ids) - 1:
        offset: IntArray = (pid - ids[0]).astype(np.int64)
        return offset
    return np.searchsorted(ids, pid).astype(np.int64)


def multiplicities(plan: Plan, draws: Draws) -> dict[int, np.ndarray[Any, Any]]:
    """Each replicate's multiplicity per participant (draw order) of a chunk of draws."""
    if not np.array_equal(draws.participants, plan.participants):
        raise ValueError("sort-once: the draws are not over the planned participants")
    return {draws.first + i: row.astype(np.int32) for i, row in enumerate(draws.counts)}


PACKED_LIMIT = 1 << 53  # every partial sum of the packed stream stays below it


def packing_unit(k_total: int, largest_loss: float | None) -> int | None:
    """rc_running_stream_packed's unit for a block of k_total covered items whose cells' raw
    loss sums are integer-valued (plan() requires it) and within [0, largest_loss] (None: not
    all >= 0). A block draws at most k_total cells (each predicts an item or more), so
    0 <= l_cum <= k_total * largest_loss =: L at every point; the unit is the smallest power of
    two above L, where every partial sum k_cum * unit + l_cum is an integer below 2^53; None
    (two sums) where it would not be.

    >>> packing_unit(1_000_000, 1.0), packing_unit(3, 0.0), packing_unit(4, 2.0)
    (1048576, 1, 16)
    >>> packing_unit(2**33, 1.0), packing_unit(10, None), packing_unit(10, 0.5)
    (None, None, None)
    """
    if largest_loss is None or largest_loss < 0 or largest_loss != int(largest_loss):
        return None
    unit = 1 << (k_total * int(largest_loss)).bit_length()
    return unit if (k_total + 1) * unit <= PACKED_LIMIT else None
