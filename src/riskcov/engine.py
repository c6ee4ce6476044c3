"""Run the SQL metric macros of `sql/` over an evaluation's scored items and sample weights.

The point estimate is replicate 0 (every participant once); bootstrap replicates are more rows
of the same sample table, so every number comes from the same SQL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np

from riskcov.csf import Csf
from riskcov.db import one
from riskcov.inputs import Input

ESTIMATORS = ("plateau-trapezoid", "item-step", "item-trapezoid")
FloatArray = np.ndarray[Any, np.dtype[np.float64]]


@dataclass(frozen=True)
class Series:
    """One curve: an input scored by a CSF. `computed` is the series whose rows are
    evaluated for it: itself, or an earlier one with the same SQL (llm = total_evidence)."""

    index: int
    input_no: int
    csf: Csf
    computed: int


@dataclass
class Results:
    """Metric values indexed [series, replicate]; NaN where a replicate leaves it undefined."""

    n_replicates: int
    scalars: dict[str, FloatArray] = field(default_factory=dict)
    curves: dict[int, dict[str, list[float]]] = field(default_factory=dict)
    achievable: dict[int, float] = field(default_factory=dict)


def build_scored(con: duckdb.DuckDBPyConnection, inputs: list[Input], csfs: list[Csf],
                 participants: list[int], loss: str, estimator: str,
                 ) -> tuple[list[Series], dict[tuple[int, str], str]]:
    """Create TEMP TABLE eval_scored; return its series and the problems found per (input, csf)."""
    con.register("_pop", {"participant_id": np.asarray(participants, dtype=np.int64)})
    con.execute("CREATE OR REPLACE TEMP TABLE eval_participants AS "
                "SELECT participant_id FROM _pop")
    con.unregister("_pop")
    series: list[Series] = []
    selects = []
    first: dict[tuple[int, str], int] = {}
    for input_no, inp in enumerate(inputs):
        scale = float(inp.score_range) if loss == "abs_norm" else 1.0
        for csf in csfs:
            index = len(series)
            computed = first.setdefault((input_no, csf.expression), index)
            s = Series(index, input_no, csf, computed)
            series.append(s)
            if computed != index:
                continue
            selects.append(
                f"SELECT {s.index} AS series, {input_no} AS population, i.participant_id,"
                f" i.item_index, CASE WHEN i.pred IS NULL THEN NULL ELSE {csf.expression} END"
                " AS confidence,"
                " CAST(abs(i.pred - i.gt) AS DOUBLE) AS loss,"
                f" CAST({scale!r} AS DOUBLE) AS loss_scale,"
                f" CASE WHEN i.pred IS NULL THEN NULL ELSE {csf.problem_sql()} END AS problem"
                " FROM items AS i JOIN eval_participants USING (participant_id)"
                " LEFT JOIN item_signals AS s USING (experiment_id, participant_id, item_index)"
                f" WHERE i.experiment_id = {inp.experiment_id}")
    con.execute("CREATE OR REPLACE TEMP TABLE eval_scored AS " + " UNION ALL ".join(selects))
    problems: dict[tuple[int, str], str] = {}
    rows = con.execute(
        "SELECT series, arg_min(participant_id, (participant_id, item_index)),"
        " arg_min(item_index, (participant_id, item_index)),"
        " arg_min(problem, (participant_id, item_index)), count(*)"
        " FROM eval_scored WHERE problem IS NOT NULL GROUP BY series ORDER BY series").fetchall()
    for sid, pid, item, problem, n in rows:
        for s in series:
            if s.computed == sid:
                name = inputs[s.input_no].item_names[item]
                problems[(s.input_no, s.csf.name)] = (
                    f"participant {pid}, item {name}: {problem} "
                    f"({n} predicted item(s) affected)")
    if estimator != "plateau-trapezoid":
        # one working point per item: ties broken by participant_id, then item_index
        con.execute("""
            CREATE OR REPLACE TEMP TABLE eval_scored AS
            SELECT * REPLACE (CASE WHEN confidence IS NULL THEN NULL ELSE
                -CAST(row_number() OVER (PARTITION BY series, confidence IS NULL
                      ORDER BY confidence DESC, participant_id, item_index) AS DOUBLE) END
                AS confidence), confidence AS raw_confidence
            FROM eval_scored""")
    return series, problems


def drop_series(con: duckdb.DuckDBPyConnection, keep: list[Series]) -> None:
    """Remove the rows of series that are not evaluated (unsupported CSFs under `all`), and
    tabulate the harmonic numbers the oracle needs (no replicate has more items than
    participants x their largest item count)."""
    ids = ", ".join(str(s.computed) for s in keep) or "-1"
    con.execute(f"DELETE FROM eval_scored WHERE series NOT IN ({ids})")
    con.execute("""
        CREATE OR REPLACE TEMP TABLE eval_harmonic AS
        FROM rc_harmonic((SELECT coalesce(count(DISTINCT participant_id) * max(n), 0)
                          FROM (SELECT participant_id, count(*) AS n FROM eval_scored
                                GROUP BY series, participant_id)))""")


def load_samples(con: duckdb.DuckDBPyConnection, replicate: np.ndarray[Any, Any],
                 participant: np.ndarray[Any, Any], multiplicity: np.ndarray[Any, Any]) -> None:
    """TEMP TABLE eval_samples(replicate, participant_id, multiplicity), from numpy in one scan."""
    con.register("_samples", {"replicate": replicate.astype(np.int32),
                              "participant_id": participant.astype(np.int64),
                              "multiplicity": multiplicity.astype(np.int32)})
    con.execute("CREATE OR REPLACE TEMP TABLE eval_samples AS SELECT * FROM _samples")
    con.unregister("_samples")


# rows of the participant x plateau join (and at most as many working points) per chunk
ROWS_PER_CHUNK = 16_000_000


def replicates_per_chunk(con: duckdb.DuckDBPyConnection, n_resamples: int) -> int:
    """How many replicates to run at once so a chunk stays near ROWS_PER_CHUNK rows.

    A replicate draws about 1 - 1/e of the participants, so it joins that share of the
    (series, participant, plateau) cells.
    """
    row = one(con.execute("SELECT count(*) FROM rc_cells('eval_scored') WHERE n_pred > 0"))
    per_replicate = max(1.0, (row[0] if row else 0) * 0.632)
    return max(1, min(max(n_resamples, 1), int(ROWS_PER_CHUNK / per_replicate)))


def single_threaded(con: duckdb.DuckDBPyConnection, query: str, params: list[Any]
                    ) -> dict[str, np.ndarray[Any, Any]]:
    """Run an aggregate on one thread, so DOUBLE sums add in table order (bit-reproducible)."""
    threads = one(con.execute("SELECT current_setting('threads')"))
    con.execute("SET threads = 1")
    try:
        return con.execute(query, params).fetchnumpy()
    finally:
        con.execute(f"SET threads = {int(threads[0]) if threads else 1}")


def _union_fetch(con: duckdb.DuckDBPyConnection, query: str, params: list[list[Any]]
                 ) -> dict[str, np.ndarray[Any, Any]]:
    """One round trip for a macro called once per grid value; NULLs come back as NaN."""
    sql = " UNION ALL ".join([query] * len(params))
    out = con.execute(sql, [p for ps in params for p in ps]).fetchnumpy()
    return {k: np.ma.filled(v.astype(np.float64), np.nan) if np.ma.isMaskedArray(v) else v
            for k, v in out.items()}


def compute(con: duckdb.DuckDBPyConnection, series: list[Series], res: Results, *,
            area_c: float, grid: list[float], alphas: list[float], estimator: str) -> None:
    """Every metric for every series and the replicates in eval_samples, written into `res`."""
    shape = (max(s.index for s in series) + 1, res.n_replicates)

    def put(name: str, sid: FloatArray, rep: FloatArray, values: FloatArray) -> None:
        arr = res.scalars.setdefault(name, np.full(shape, np.nan))
        arr[sid.astype(np.intp), rep.astype(np.intp)] = values

    con.execute("CREATE OR REPLACE TEMP TABLE eval_totals AS "
                "FROM rc_totals('eval_scored', 'eval_samples')")
    con.execute("CREATE OR REPLACE TEMP TABLE eval_points AS "
                "FROM rc_points('eval_scored', 'eval_samples', 'eval_totals')")
    m = single_threaded(con, "SELECT * FROM rc_metrics('eval_points', 'eval_totals', ?, ?)",
                        [area_c, estimator])
    for name in ("cmax", "aurc_full", "augrc_full", "aurc_at_c", "augrc_at_c"):
        put(name, m["series"], m["replicate"], m[name])
    present = np.unique(m["replicate"]).astype(np.intp)
    o = con.execute("""
        SELECT DISTINCT sc.series, o.replicate, o.aurc_optimal, o.augrc_optimal
        FROM rc_oracle('eval_scored', 'eval_samples', 'eval_totals', 'eval_harmonic', ?) AS o
        JOIN (SELECT DISTINCT series, population FROM eval_scored) AS sc USING (population)
    """, [estimator]).fetchnumpy()
    for name in ("aurc_optimal", "augrc_optimal"):
        put(name, o["series"], o["replicate"], o[name])
    if not len(present):  # no participant at all: N = 0, so Cmax and every area are 0 (SPEC §4)
        present = np.array([0], dtype=np.intp)
        for name in ("cmax", "aurc_full", "augrc_full", "aurc_at_c", "augrc_at_c",
                     "aurc_optimal", "augrc_optimal"):
            res.scalars[name][:, 0] = 0.0
    res.scalars["eaurc"] = res.scalars["aurc_full"] - res.scalars["aurc_optimal"]
    res.scalars["eaugrc"] = res.scalars["augrc_full"] - res.scalars["augrc_optimal"]
    mae = _union_fetch(con, "SELECT * FROM rc_mae_at_coverage('eval_points', ?, ?)",
                       [[c, estimator] for c in grid])
    for c in grid:
        sel = (mae["requested"] == c) & ~np.isnan(mae["value"])
        put(f"mae@{c!r}", mae["series"][sel], mae["replicate"][sel], mae["value"][sel])
        put(f"mae_achieved@{c!r}", mae["series"][sel], mae["replicate"][sel],
            mae["achieved"][sel])
    car = _union_fetch(con, "SELECT * FROM rc_coverage_at_risk('eval_points', ?)",
                       [[a] for a in alphas])
    confidence_of = _item_confidences(con) if estimator != "plateau-trapezoid" else None
    if confidence_of is not None:
        car["threshold"] = np.array([confidence_of.get((int(sid), key), np.nan) for sid, key
                                     in zip(car["series"], car["threshold"], strict=True)],
                                    dtype=np.float64)
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
    rows = con.execute(
        "SELECT series, plateau, coverage, selective_risk, generalized_risk, threshold "
        "FROM eval_points WHERE replicate = 0 ORDER BY series, plateau").fetchall()
    for s in series:
        res.curves[s.index] = {"coverage": [], "selective_risk": [], "generalized_risk": [],
                               "threshold": [], "plateau": []}
    for sid, plateau, cov, sel_r, gen_r, thr in rows:
        curve = res.curves[sid]
        curve["plateau"].append(plateau)
        curve["coverage"].append(cov)
        curve["selective_risk"].append(sel_r)
        curve["generalized_risk"].append(gen_r)
        curve["threshold"].append(thr if confidence_of is None else confidence_of[(sid, thr)])
    res.achievable = achievable(con, res, area_c)


def _item_confidences(con: duckdb.DuckDBPyConnection) -> dict[tuple[int, float], float]:
    """Item estimators rank items by a tie-broken key: (series, key) -> the item's confidence."""
    return {(sid, key): raw for sid, key, raw in con.execute(
        "SELECT series, confidence, raw_confidence FROM eval_scored "
        "WHERE confidence IS NOT NULL").fetchall()}


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


def hull_indices(coverage: list[float], risk: list[float]) -> list[int]:
    """Indices of the lower convex hull of the working points (monotone chain, SPEC §4):
    a point is dropped when the turn it makes is clockwise or within 1e-10 of collinear.

    >>> hull_indices([0.25, 0.375, 0.5], [1.0, 0.9, 0.2])
    [0, 2]
    """
    hull: list[int] = []
    for j in sorted(range(len(coverage)), key=lambda j: coverage[j]):
        while len(hull) >= 2:
            o, a = hull[-2], hull[-1]
            cross = ((coverage[a] - coverage[o]) * (risk[j] - risk[o])
                     - (risk[a] - risk[o]) * (coverage[j] - coverage[o]))
            if cross <= 1e-10:
                hull.pop()
            else:
                break
        hull.append(j)
    return hull


def achievable(con: duckdb.DuckDBPyConnection, res: Results, area_c: float) -> dict[int, float]:
    """AURC of each series' hull points, integrated by the same SQL as every other area."""
    sids, plateaus = [], []
    for sid, curve in res.curves.items():
        for j in hull_indices(curve["coverage"], curve["selective_risk"]):
            sids.append(sid)
            plateaus.append(curve["plateau"][j])
    con.register("_hull", {"series": np.asarray(sids, dtype=np.int64),
                           "plateau": np.asarray(plateaus, dtype=np.int64)})
    con.execute("""
        CREATE OR REPLACE TEMP TABLE eval_hull AS
        SELECT p.* REPLACE (
                   lag(p.coverage) OVER w AS coverage_prev,
                   lag(p.selective_risk) OVER w AS selective_risk_prev,
                   lag(p.generalized_risk) OVER w AS generalized_risk_prev)
        FROM eval_points AS p JOIN _hull AS h USING (series, plateau)
        WHERE p.replicate = 0
        WINDOW w AS (PARTITION BY p.series ORDER BY p.plateau)""")
    con.unregister("_hull")
    rows = con.execute(
        "SELECT series, aurc_full FROM rc_metrics('eval_hull', 'eval_totals', ?, "
        "'plateau-trapezoid') WHERE replicate = 0", [area_c]).fetchall()
    return {int(sid): float(v) for sid, v in rows}
