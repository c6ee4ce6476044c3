"""rc_points' composition (rc_plateaus, then rc_running) over plateau cells built once.

`evaluate` builds rc_cells once per evaluation and runs this per chunk of replicates. When every
block of `totals` is exact, rc_running_exact alone gives the same rows without rc_running's
second scan of the increments for its limb path. (riskcov.materialise calls rc_points itself:
there a TEMP TABLE of the cells of a round of 2 CSFs x 800,000 items cost more time and ~0.8 GB
more memory than rc_points' CTE.)

>>> print(points_query("s", "c", "w", "t", exact=True))
WITH increments AS (FROM rc_plateaus('s', 'c', 'w')) FROM rc_running_exact('increments', 't')
"""

from __future__ import annotations

import duckdb

from riskcov.db import one


def points_query(scored: str, cells: str, samples: str, totals: str, *, exact: bool) -> str:
    """The SELECT of the working points of `samples`' replicates (rc_points' rows, same order)."""
    running = "rc_running_exact" if exact else "rc_running"
    return (
        f"WITH increments AS (FROM rc_plateaus('{scored}', '{cells}', '{samples}')) "
        f"FROM {running}('increments', '{totals}')"
    )


def all_exact(con: duckdb.DuckDBPyConnection, totals: str) -> bool:
    """Whether every block of a totals table (rc_totals, rc_totals_of) takes the exact path."""
    row = one(con.execute(f"SELECT coalesce(bool_and(exact), true) FROM {totals}"))
    return bool(row and row[0])
