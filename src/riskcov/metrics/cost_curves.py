"""Effective reliability per cost (docs/metrics-extended.md): for each cost c of `--costs`,
the best Phi_c over each replicate's working points with its threshold and coverage, from the
SQL macro rc_effective_reliability (on Spark: sql/portable/effective_reliability.sql);
replicate 0 gives the value, the others its bootstrap CI. The oracle-gap area that
goes with it is the artifact's eaurc_population (the same integral), not a number of its own."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import duckdb
import numpy as np

from riskcov.metrics.engine import Results
from riskcov.metrics.scalars import put
from riskcov.scoring.scored import Series
from riskcov.warehouse.duckdb_helpers import one

COLUMNS = ("phi", "threshold", "coverage")


def compute(
    con: duckdb.DuckDBPyConnection,
    series: list[Series],
    res: Results,
    costs: list[float],
    replicate0_only: bool = False,
) -> None:
    """Phi_c, its threshold and coverage per series and replicate of this chunk (TEMP TABLEs
    eval_points and eval_totals), into res.scalars[f"phi_{column}@{c!r}"][:, replicate];
    `replicate0_only`: replicate 0 alone (the other replicates' points are not there)."""
    store(res, series, costs, best_points(con, costs, replicate0_only))


def best_points(
    con: duckdb.DuckDBPyConnection, costs: list[float], replicate0_only: bool = False
) -> dict[str, Any]:
    """rc_effective_reliability's rows (series, replicate, cost, phi, threshold, coverage) over
    this chunk's points: of the series _exact_series names only their hull vertices."""
    where = " WHERE replicate = 0" if replicate0_only else ""
    con.execute(f"CREATE OR REPLACE TEMP VIEW eval_totals_phi AS FROM eval_totals{where}")
    exact = _exact_series(con, costs)
    if exact:  # those series' hull vertices stand for their points (see _exact_series)
        ids = ", ".join(str(s) for s in exact)
        cols = "series, replicate, threshold, k_cum, l_cum"
        also = where.replace("WHERE", "AND")
        con.execute(
            f"CREATE OR REPLACE TEMP VIEW eval_points_phi AS "
            f"SELECT {cols} FROM eval_vertices WHERE series IN ({ids}){also} "
            f"UNION ALL SELECT {cols} FROM eval_points WHERE series NOT IN ({ids}){also}"
        )
    else:
        con.execute(f"CREATE OR REPLACE TEMP VIEW eval_points_phi AS FROM eval_points{where}")
    packing = _packing(con, costs)
    out: dict[str, Any] = con.execute(
        "SELECT series, replicate, cost, phi, threshold, coverage "
        "FROM rc_effective_reliability('eval_points_phi', 'eval_totals_phi', ?, unit := ?, k_base := ?)",
        [costs, *(packing or (None, None))],
    ).fetchnumpy()
    for name in ("points", "totals"):
        con.execute(f"DROP VIEW eval_{name}_phi")
    return out


def _exact_series(con: duckdb.DuckDBPyConnection, costs: list[float]) -> list[int]:
    """The series of this chunk whose best Phi_c is found among their hull vertices alone
    (metrics.interpolated keeps them, eval_vertices) with the same bits as among all points.

    rc_effective_reliability takes, per block and cost, the point of the largest gain
    k_cum * s - (1 + c) * l_cum (s the loss scale), ties to the fewest accepted units. With
    mu = s / (1 + c) > 0 that is the point of the least l_cum - mu * k_cum: a support line of
    slope mu from below in the (k_cum, l_cum) plane. The points it touches form a face of the
    lower convex hull of the points and (0, 0), and the one of fewest units is an end of that
    face, a hull vertex, unless the face holds (0, 0) or lies above it, where the best gain is
    <= 0 and the macro accepts nothing whichever point it picks. So the vertices (collinear
    points dropped, found exactly in integers) give the same point, hence the same threshold,
    coverage and Phi_c, provided every gain is computed exactly, so that equal gains tie and
    the order of gains is the exact one: true when s and every 1 + c are dyadic (doubles are)
    and k * s + (1 + c) * l, in units of the finest of their denominators, stays below 2**53
    (every product and difference is then a representable multiple of it). The default costs
    and 0/1 or integer losses pass; a cost such as 0.3 (1.3 needs 52 bits) does not, and its
    series keep every point.

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> _exact_series(con, [0.5])
    []
    >>> _ = con.execute("CREATE TABLE eval_vertices AS SELECT 0 AS series")
    >>> _ = con.execute("CREATE TABLE eval_totals AS SELECT 0 AS series, 10 AS k_total, "
    ...                 "7.0 AS l_total, 3.0 AS loss_scale")
    >>> _exact_series(con, [0.0, 0.5, 4.0]), _exact_series(con, [0.3])
    ([0], [])
    """
    known = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'eval_vertices'")
    if not costs or (one(known) or (0,))[0] == 0:
        return []
    rows = con.execute(
        "SELECT series, max(k_total), CAST(max(abs(l_total)) AS DOUBLE), "
        "list(DISTINCT CAST(loss_scale AS DOUBLE)) FROM eval_totals "
        "WHERE series IN (SELECT DISTINCT series FROM eval_vertices) GROUP BY series ORDER BY series"
    ).fetchall()
    out = []
    for sid, k_max, l_max, scales in rows:
        if k_max is not None and l_max is not None and _gain_unit(costs, scales, k_max, l_max) is not None:
            out.append(int(sid))
    return out


def _gain_unit(costs: list[float], scales: list[float], k_max: int, l_max: float) -> tuple[int, int] | None:
    """(unit, bound) when every gain k_cum * s - (1 + c) * l_cum of points with k_cum <= k_max,
    integer-valued |l_cum| <= l_max and loss scale s of `scales` is computed exactly: the
    largest denominator of s and 1 + c (powers of two: they are doubles), and the largest
    |gain| in that unit, below 2**53 (_exact_series says why that suffices); None otherwise.

    >>> _gain_unit([0.0, 0.5, 4.0], [3.0], 10, 7.0), _gain_unit([0.3], [3.0], 10, 7.0)
    ((2, 130), None)
    """
    lambdas = [Fraction(1.0 + c) for c in costs]
    fractions = [Fraction(s) for s in scales] + lambdas
    if not lambdas or not scales or any(f <= 0 for f in fractions):
        return None
    unit = max(f.denominator for f in fractions)
    bound = (k_max * max(fractions[: len(scales)]) + Fraction(l_max) * max(lambdas)) * unit
    return (unit, int(bound)) if bound < 2**53 else None


def _packing(con: duckdb.DuckDBPyConnection, costs: list[float]) -> tuple[float, float] | None:
    """rc_effective_reliability's (unit, k_base) for this chunk's eval_points_phi and
    eval_totals_phi, or None to keep its struct max: every l_cum integer-valued, every gain
    exact in `unit` (_gain_unit), k_cum below k_base and (largest |gain| / unit + 1) * k_base
    <= 2**53, which the macro's header asks of them.

    The bounds come from the blocks' totals, not from a scan of the points: every block
    `exact` (rc_totals_of: integer-valued losses, so every l_cum is an integer), and with every
    loss >= 0 (eval_losses) a block's points have 0 <= l_cum <= l_total and k_cum <= k_total.
    Those are the largest k_cum and l_cum themselves (a block's last point is its totals), so
    the unit and k_base are the ones the points would give; a chunk that fails a condition
    keeps the struct max, the same rows.

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE eval_totals_phi AS SELECT 5 AS k_total, 2.0 AS l_total, "
    ...                 "true AS exact, 3.0 AS loss_scale")
    >>> _ = con.execute("CREATE TABLE eval_losses AS SELECT 1.0 AS loss")
    >>> _packing(con, [0.0, 0.5]), _packing(con, [0.3])
    ((0.5, 8.0), None)
    """
    row = one(
        con.execute(
            "SELECT max(k_total), max(l_total), bool_and(exact), list(DISTINCT CAST(loss_scale AS DOUBLE)), "
            "(SELECT coalesce(min(loss) >= 0, true) FROM eval_losses) FROM eval_totals_phi"
        )
    )
    if row is None or row[0] is None or not row[2] or not row[4]:
        return None
    k_max, l_max, _, scales, _ = row
    if not scales or any(s is None for s in scales):  # NULL gains: the struct max ranks them
        return None
    found = _gain_unit(costs, scales, int(k_max), float(l_max))
    if found is None:
        return None
    unit, bound = found
    k_base = 1 << int(k_max).bit_length()  # above every k_cum
    if (bound + 1) * k_base > 2**53:
        return None
    return 1.0 / unit, float(k_base)


def store(res: Results, series: list[Series], costs: list[float], out: dict[str, Any]) -> None:
    """Rows (series, [replicate,] cost, phi, threshold, coverage: the macro's, or the portable
    query's on Spark) into res.scalars."""
    if not len(out["series"]):
        return
    for c in costs:
        sel = out["cost"] == c
        rep = out["replicate"][sel].astype(np.intp) if "replicate" in out else 0
        for column in COLUMNS:
            put(res, series, f"phi_{column}@{c!r}", out["series"][sel], rep, out[column][sel])


def block(res: Results, index: int, costs: list[float], key: Any) -> dict[str, Any]:
    """The artifact's effective_reliability object of one series: {key(c): {cost, value,
    threshold, coverage}}; value None where no point was computed (no unit at all)."""
    out: dict[str, Any] = {}
    for c in costs:
        values = [_value(res.scalars.get(f"phi_{column}@{c!r}"), index) for column in COLUMNS]
        out[key(c)] = {"cost": c, "value": values[0], "threshold": values[1], "coverage": values[2]}
    return out


def replicates(res: Results, index: int, c: float) -> np.ndarray[Any, Any] | None:
    """The best Phi_c of replicates 1..B of one series, or None when none was computed."""
    arr = res.scalars.get(f"phi_phi@{c!r}")
    if arr is None or np.isnan(arr[index, 1:]).all():  # no replicate computed
        return None
    return arr[index, 1:]


def _value(arr: np.ndarray[Any, Any] | None, index: int) -> float | None:
    if arr is None or np.isnan(arr[index, 0]):
        return None
    return float(arr[index, 0])
