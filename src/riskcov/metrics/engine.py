"""Run the SQL metric macros of `sql/` over an evaluation's scored items and sample weights.

The point estimate is replicate 0 (every participant once); bootstrap replicates are more rows
of the same sample table, so every number comes from the same SQL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np

from riskcov.metrics import cells, curve_grid, interpolated, plateau_stream, point_curves, stream_plan
from riskcov.metrics.hull import achievable
from riskcov.scoring.scored import Series
from riskcov.warehouse.duckdb_helpers import one, single_threaded

# rc_summary's columns kept per series and replicate
SUMMARY = (
    "cmax",
    "aurc_full",
    "augrc_full",
    "aurc_at_c",
    "augrc_at_c",
    "aurc_optimal",
    "augrc_optimal",
    "eaurc",
    "eaugrc",
    "aurc_optimal_population",
    "eaurc_population",
)
# what a curve keeps of replicate 0's points; threshold last (item estimators map it back)
CURVE_COLUMNS = ("plateau", "k_cum", "l_cum", "coverage", "selective_risk", "generalized_risk", "threshold")
FloatArray = np.ndarray[Any, np.dtype[np.float64]]


@dataclass
class Results:
    """Metric values indexed [series, replicate]; NaN where a replicate leaves it undefined."""

    n_replicates: int
    scalars: dict[str, FloatArray] = field(default_factory=dict)
    curves: dict[int, dict[str, list[float]]] = field(default_factory=dict)
    achievable: dict[int, float] = field(default_factory=dict)
    curve_grids: dict[int, dict[str, list[float | None]]] = field(default_factory=dict)

    def array(self, name: str, shape: tuple[int, int]) -> FloatArray:
        """scalars[name], made all NaN on its first use. Every chunk writes each of its metrics
        this way (~50 names per chunk, on several threads), so the array is allocated once:
        `setdefault(name, np.full(...))` built and filled a new one (a MB at 12 series x 10,001
        replicates) on every call, only to throw it away."""
        arr = self.scalars.get(name)
        if arr is None:  # setdefault: a chunk on another thread may have made it meanwhile
            arr = self.scalars.setdefault(name, np.full(shape, np.nan))
        return arr


def drop_series(con: duckdb.DuckDBPyConnection, keep: list[Series]) -> None:
    """Remove the rows of series that are not evaluated (unsupported CSFs under `all`), and
    tabulate what does not depend on the replicates: the plateau cells (rc_cells), the series,
    the per-participant sums rc_totals_of weights (rc_series, rc_people), the loss counts and
    harmonic numbers the oracle needs (rc_loss_counts; no replicate has more items than
    participants x their largest item count)."""
    ids = ", ".join(str(s.computed) for s in keep) or "-1"
    con.execute(f"DELETE FROM eval_scored WHERE series NOT IN ({ids})")
    con.execute("CREATE OR REPLACE TEMP TABLE eval_cells AS FROM rc_cells('eval_scored')")
    for table, macro in (
        ("eval_series", "rc_series"),
        ("eval_people", "rc_people"),
        ("eval_losses", "rc_loss_counts"),
    ):
        con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS FROM {macro}('eval_scored')")
    # every series of a population holds the same items of each participant (rc_people counts
    # them once per population), so the largest item count is eval_people's, not a second
    # aggregate over every scored item
    con.execute("""
        CREATE OR REPLACE TEMP TABLE eval_harmonic AS
        FROM rc_harmonic((SELECT coalesce(count(DISTINCT participant_id) * max(n_items), 0)
                          FROM eval_people))""")


def load_samples(
    con: duckdb.DuckDBPyConnection,
    replicate: np.ndarray[Any, Any],
    participant: np.ndarray[Any, Any],
    multiplicity: np.ndarray[Any, Any],
) -> None:
    """TEMP TABLE eval_samples(replicate, participant_id, multiplicity), from numpy in one scan."""
    con.register(
        "_samples",
        {
            "replicate": replicate.astype(np.int32),
            "participant_id": participant.astype(np.int64),
            "multiplicity": multiplicity.astype(np.int32),
        },
    )
    con.execute("CREATE OR REPLACE TEMP TABLE eval_samples AS SELECT * FROM _samples")
    con.unregister("_samples")


# rc_points' composition of rc_plateaus and rc_running, over the cells built once (drop_series);
# rc_running_exact alone (the same rows, without rc_running's second scan of the increments for
# its limb path) when every block of the chunk is exact, or rc_running_exact_packed (the same
# rows from one running sum; `unit` its parameter) where packing_unit grants it. eval_points
# keeps every column but k_total, which no metric reads from the points (rc_metrics takes it
# from the totals): one column of ~1 M rows less to sort and write per chunk
POINTS_SQL = (
    "WITH increments AS (FROM rc_plateaus('eval_scored', 'eval_cells', 'eval_samples')) "
    "SELECT * EXCLUDE (k_total) FROM {running}('increments', 'eval_totals'{unit})"
)
# the packed unit's bounds (packing_unit): the stream's item and loss totals over its exact
# blocks (the last block's offset plus its total) and whether every increment's loss is >= 0
PACKING_SQL = """
    SELECT max(k_offset + k_total), max(l_offset + l_total),
           (SELECT coalesce(min(loss_sum) >= 0, true) FROM eval_cells WHERE n_pred > 0)
    FROM eval_totals WHERE exact"""
PACKED_LIMIT = 2**53


def packing_unit(k_total: Any, l_total: Any, nonnegative: Any) -> float | None:
    """rc_running_exact_packed's unit for a stream of exact blocks whose items and raw losses
    add up to k_total and l_total, every loss >= 0 (nonnegative): the smallest power of two
    above l_total, where (k_total + 1) * unit <= 2^53 (its header says why that is exact);
    None (two running sums, rc_running_exact) otherwise or without blocks.

    >>> packing_unit(12_441_240, 4_219_500.0, True), packing_unit(3, 0.0, True)
    (8388608.0, 1.0)
    >>> packing_unit(2**30, 2.0**23, True), packing_unit(10, 5.0, False), packing_unit(None, None, True)
    (None, None, None)
    """
    if k_total is None or l_total is None or not nonnegative or l_total < 0 or l_total != int(l_total):
        return None
    unit = 1 << int(l_total).bit_length()
    return float(unit) if (int(k_total) + 1) * unit <= PACKED_LIMIT else None


def _fetch(con: duckdb.DuckDBPyConnection, query: str, params: list[Any]) -> dict[str, np.ndarray[Any, Any]]:
    """A grid macro's rows as float arrays; NULLs come back as NaN."""
    out = con.execute(query, params).fetchnumpy()
    return {
        k: np.ma.filled(v.astype(np.float64), np.nan) if np.ma.isMaskedArray(v) else v for k, v in out.items()
    }


def compute(
    con: duckdb.DuckDBPyConnection,
    series: list[Series],
    res: Results,
    *,
    area_c: float,
    grid: list[float],
    alphas: list[float],
    estimator: str,
    curve_points: int | None = None,
    stream: tuple[stream_plan.Plan, stream_plan.Draws] | None = None,
    cumulative: tuple[cells.Plan, tuple[Any, Any, Any]] | None = None,
) -> None:
    """Every metric for every series and the replicates in eval_samples, written into `res`
    (and, with `curve_points`, replicate 0's curve sampled at that many coverages). With
    `stream` (stream_plan.plan's plan and the chunk's draws), the working points come
    from the cells sorted once when every block is exact, and eval_samples need not be loaded
    unless the chunk holds replicate 0 (its curves read it) or the caller reads it; with
    `cumulative` (cells.plan's plan and the chunk's sample rows), from the cumulative cells, and
    eval_samples need not be loaded either, on the same terms."""
    shape = (max(s.index for s in series) + 1, res.n_replicates)

    def put(name: str, sid: FloatArray, rep: FloatArray, values: FloatArray) -> None:
        arr = res.array(name, shape)
        arr[sid.astype(np.intp), rep.astype(np.intp)] = values

    if stream is not None:  # eval_totals and the oracle's runs (eval_runs) without a join
        weights = plateau_stream.totals(con, *stream)
        summary = "rc_summary_runs('eval_losses', 'eval_runs'"
    elif cumulative is not None:  # the same and the runs placed, as inner products of the draws
        cells.totals(con, *cumulative)
        summary = "rc_summary_placed('eval_losses', 'eval_runs'"
    else:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE eval_totals AS "
            "FROM rc_totals_of('eval_series', 'eval_people', 'eval_samples')"
        )
        summary = "rc_summary_of('eval_losses', 'eval_samples'"
    exact = one(con.execute("SELECT coalesce(bool_and(exact), true) FROM eval_totals"))
    running = "rc_running_exact" if exact and exact[0] else "rc_running"
    if stream is not None and running == "rc_running_exact":
        plateau_stream.points(con, stream[0], weights)
    elif cumulative is not None and running == "rc_running_exact":
        cells.points(con, cumulative[0])
    else:
        if stream is not None:  # the sort-once path's callers load eval_samples only where it is read
            load_samples(con, *stream[1].rows())
        elif cumulative is not None:  # and the cells' callers likewise
            load_samples(con, *cumulative[1])
        # every block exact: one packed running sum where its bounds allow (rc_running_exact_packed)
        unit = packing_unit(*(one(con.execute(PACKING_SQL)) or (None,) * 3)) if exact and exact[0] else None
        if unit is None:
            sql, params = POINTS_SQL.format(running=running, unit=""), None
        else:
            sql, params = POINTS_SQL.format(running="rc_running_exact_packed", unit=", $unit"), {"unit": unit}
        con.execute(f"CREATE OR REPLACE TEMP TABLE eval_points AS {sql}", params)
    m = single_threaded(
        con,
        f"SELECT * FROM {summary}, 'eval_points', 'eval_totals', 'eval_harmonic', ?, ?)",
        [area_c, estimator],
    )
    for name in SUMMARY:
        put(name, m["series"], m["replicate"], np.ma.filled(m[name].astype(np.float64), np.nan))
    name = "aurc_achievable_interpolated"
    put(name, m["series"], m["replicate"], m["aurc_interpolated_points"])
    binary = np.ma.filled(m["losses_binary"], False).astype(bool)
    subset = interpolated.compute(con, sorted({int(s) for s in m["series"][binary]}), estimator)
    if subset is not None:
        put(name, subset["series"], subset["replicate"], subset[name])
    present = np.unique(m["replicate"]).astype(np.intp)
    if not len(present):  # no participant at all: N = 0, so Cmax and every area are 0 (docs/metrics.md)
        present = np.array([0], dtype=np.intp)
        for name in (*SUMMARY, "aurc_achievable_interpolated"):
            if name not in ("aurc_optimal_population", "eaurc_population"):  # no loss: undefined
                res.scalars[name][:, 0] = 0.0
    mae = _fetch(con, "SELECT * FROM rc_mae_at_coverages('eval_points', ?, ?)", [grid, estimator])
    for c in grid:
        sel = (mae["requested"] == c) & ~np.isnan(mae["value"])
        put(f"mae@{c!r}", mae["series"][sel], mae["replicate"][sel], mae["value"][sel])
        put(f"mae_achieved@{c!r}", mae["series"][sel], mae["replicate"][sel], mae["achieved"][sel])
    car = _fetch(con, "SELECT * FROM rc_coverage_at_risks('eval_points', ?)", [alphas])
    confidence_of = _item_confidences(con) if estimator != "plateau-trapezoid" else None
    if confidence_of is not None:
        car["threshold"] = np.array(
            [
                confidence_of.get((int(sid), key), np.nan)
                for sid, key in zip(car["series"], car["threshold"], strict=True)
            ],
            dtype=np.float64,
        )
    for a in alphas:
        sel = car["alpha"] == a
        for col in ("coverage", "risk", "threshold"):
            put(f"car_{col}@{a!r}", car["series"][sel], car["replicate"][sel], car[col][sel])
        # no qualifying point means coverage 0, not undefined
        arr = res.scalars[f"car_coverage@{a!r}"][:, present]
        arr[np.isnan(arr)] = 0.0
        res.scalars[f"car_coverage@{a!r}"][:, present] = arr
    if len(present) and present[0] != 0:
        return
    for s in series:
        res.curves[s.index] = {k: [] for k in CURVE_COLUMNS}
    res.curves.update(point_curves.read(con, CURVE_COLUMNS, confidence_of))
    con.execute("CREATE OR REPLACE TEMP VIEW eval_unit_samples AS FROM eval_samples WHERE replicate = 0")
    con.execute(
        "CREATE OR REPLACE TEMP TABLE eval_totals0 AS "
        "FROM rc_totals_of('eval_series', 'eval_people', 'eval_unit_samples')"
    )
    res.achievable = achievable(con, res.curves, area_c)
    if curve_points:
        cmax = {s.index: float(res.scalars["cmax"][s.index, 0]) for s in series}
        res.curve_grids = curve_grid.sample(con, series, cmax, curve_points)


def _item_confidences(con: duckdb.DuckDBPyConnection) -> dict[tuple[int, float], float]:
    """Item estimators rank items by a tie-broken key: (series, key) -> the item's confidence."""
    return {
        (sid, key): raw
        for sid, key, raw in con.execute(
            "SELECT series, confidence, raw_confidence FROM eval_scored WHERE confidence IS NOT NULL"
        ).fetchall()
    }


def copy_aliases(series: list[Series], res: Results) -> None:
    """Give every series computed by another series that series' numbers."""
    for s in series:
        if s.computed == s.index:
            continue
        for arr in res.scalars.values():
            arr[s.index] = arr[s.computed]
        if s.computed in res.curves:
            res.curves[s.index] = res.curves[s.computed]
        if s.computed in res.achievable:
            res.achievable[s.index] = res.achievable[s.computed]
        if s.computed in res.curve_grids:
            res.curve_grids[s.index] = res.curve_grids[s.computed]
