"""The metrics of a refresh's series (riskcov.warehouse.metric_tables): warehouse_metrics over
every round's RC points read back from `rc_points`, in the TEMP tables the rounds left."""

from __future__ import annotations

import duckdb

from riskcov.warehouse.beside import Beside
from riskcov.warehouse.duckdb_helpers import one, one_thread

ALL_POINTS_SQL = (
    "CREATE OR REPLACE TEMP VIEW mat_all_points AS "
    "SELECT k.series, p.* EXCLUDE (experiment_id, csf, loss) FROM rc_points AS p "
    "JOIN mat_series AS k USING (experiment_id, csf, loss) "
    "WHERE p.experiment_id IN ({ids})"
)


def insert_metrics(
    con: duckdb.DuckDBPyConnection, ids: str, harmonic: tuple[Beside, int] | None = None
) -> None:
    """Insert the metrics of every round's series at once, on one thread (as `evaluate` sums
    a block's areas: in point order, reproducible to the last bit); `ids`: the experiments'
    ids, listed. `harmonic`: rc_harmonic up to a bound of n_total, being built beside."""
    n = "(SELECT coalesce(max(n_total), 0) FROM mat_all_totals)"
    if not _harmonic_beside(con, n, harmonic):
        con.execute(f"CREATE OR REPLACE TEMP TABLE mat_harmonic AS FROM rc_harmonic({n})")
    # every round's points as rc_points holds them, in the order they were inserted (a scan
    # of rc_points is in insertion order, and a join probing with it on one thread keeps it:
    # DuckDB's behaviour, not a SQL guarantee, so a test holds the rows to those of the points
    # sorted explicitly, bit for bit: test_materialise's ALL_POINTS test)
    con.execute(ALL_POINTS_SQL.format(ids=ids))
    with one_thread(con):
        con.execute(
            "INSERT INTO metrics BY NAME SELECT * FROM warehouse_metrics('mat_oracle', 'mat_units', "
            "'mat_all_points', 'mat_all_totals', 'mat_harmonic', 'mat_series') "
            "ORDER BY experiment_id, csf, loss"
        )
        con.execute(
            "UPDATE metrics SET aurc_ba = b.aurc_ba, augrc_ba = b.augrc_ba FROM "
            "(SELECT k.experiment_id, k.csf, k.loss, b.aurc_ba, b.augrc_ba "
            " FROM rc_balanced_of('mat_class_cells', 'mat_units', 'mat_all_points') AS b "
            " JOIN mat_series AS k USING (series)) AS b "
            "WHERE metrics.experiment_id = b.experiment_id AND metrics.csf = b.csf AND metrics.loss = b.loss"
        )
    con.execute("DROP VIEW temp.mat_all_points")


def _harmonic_beside(con: duckdb.DuckDBPyConnection, n: str, harmonic: tuple[Beside, int] | None) -> bool:
    """TEMP TABLE mat_harmonic from the table built beside, when it was built (the macros
    committed) and reaches max(n_total): exact HUGEINT prefix sums, so its first rows are
    those of the shorter table rc_harmonic(max(n_total)) gives."""
    if harmonic is None:
        return False
    largest = one(con.execute(f"SELECT {n}"))
    if largest is None or int(largest[0]) > harmonic[1]:
        return False
    try:
        built = harmonic[0].table()
    except duckdb.Error:  # rc_harmonic not committed (a connection whose macros are not)
        return False
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE mat_harmonic AS FROM {built} WHERE k <= {int(largest[0])} ORDER BY k"
    )
    return True
