"""The warehouse's own point metrics and RC points: the tables `metrics` and `rc_points`
(migration 0006), kept per experiment so that v_metrics / v_rc_points are scans.

Rows are computed by the macros of `sql/` only (the units under each CSF: the items' read
from internal.v_csf_columns, every CSF in one join (riskcov.warehouse.csf_columns), the
samples' from warehouse_sample_confidences; then warehouse_series → warehouse_scored of each
experiment and CSF once, whose losses' series share those units (warehouse_sources,
warehouse_shared_scored) → rc_totals_of → rc_points_once, each series sorted once, or
rc_points when a block's losses are not integers, per round of a few CSFs, with rc_people once
per population; then warehouse_metrics, i.e. rc_summary, once over every round's points, read
back from `rc_points`), exactly as `evaluate --bootstrap-resamples 0`, on the experiments being
added, through TEMP tables (a view chain would recompute the scored units for every macro that
reads them). The macros get integer series and population keys, numbered in the order of
(experiment_id, csf, loss), so their rows come in the order struct keys gave. Everything runs
inside the caller's transaction: an ingest's rows and their metrics land together or not at all.
"""

from __future__ import annotations

from collections.abc import Iterable

import duckdb

from riskcov.warehouse.csf_columns import columns_sql
from riskcov.warehouse.duckdb_helpers import bounded_memory, memory_share, one, one_thread
from riskcov.warehouse.metric_rounds import id_list, score_round

TABLES = ("metrics", "rc_points")
# The whole process's memory target while the metric tables are computed: DuckDB's memory_limit
# is what the rest of the process leaves of it (a parsed run JSON's freed objects stay resident),
# and at least MEMORY_FLOOR_BYTES. Without a bound its buffers for the temporary tables of a
# 100,000-participant ingest grew to ~1.5 GiB on top of the parsed run; beyond the bound it
# spills them to the warehouse's temp directory, which a Parquet file of millions of samples
# (nothing parsed in Python) need not do at the floor (docs/performance.md, ingest)
PROCESS_MEMORY_BYTES = 1536 * 2**20
MEMORY_FLOOR_BYTES = 640 * 2**20
# scored rows per round (units x CSFs x losses): bounds the memory of a large ingest
ROWS_PER_CHUNK = 4_000_000
# items x CSFs scored at once (a confidence and a problem column per CSF): every CSF of a
# 100,000-participant run in one join of items with item_signals, bounded for larger ones
ITEM_CELLS_PER_JOIN = 16_000_000
_TEMP = (
    "mat_item_csfs",
    "mat_people",
    "mat_round_series",
    "mat_sources",
    "mat_harmonic",
    "mat_totals",
    "mat_all_totals",
    "mat_scored",
    "mat_oracle",
    "mat_round",
    "mat_series",
    "mat_units",
    "mat_experiments",
    "mat_class_cells",
)


def forget(con: duckdb.DuckDBPyConnection, experiment_ids: Iterable[int]) -> None:
    """Delete the metrics and RC points of these experiments."""
    listed = id_list(experiment_ids)
    if listed:
        for table in TABLES:
            con.execute(f"DELETE FROM {table} WHERE experiment_id IN ({listed})")


def forget_run(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """Delete the metrics and RC points of every experiment of a run (before the run goes)."""
    for table in TABLES:
        con.execute(
            f"DELETE FROM {table} WHERE experiment_id IN "
            "(SELECT experiment_id FROM experiments WHERE run_id = ?)",
            [run_id],
        )


def refresh(con: duckdb.DuckDBPyConnection, experiment_ids: Iterable[int] | None = None) -> int:
    """(Re)compute the rows of `experiment_ids` (every experiment when None); return the
    number of metric rows written. DuckDB's memory is bounded meanwhile (PROCESS_MEMORY_BYTES)."""
    with bounded_memory(con, memory_share(con, PROCESS_MEMORY_BYTES, MEMORY_FLOOR_BYTES)):
        return _refresh(con, experiment_ids)


def _refresh(con: duckdb.DuckDBPyConnection, experiment_ids: Iterable[int] | None) -> int:
    if experiment_ids is None:
        for table in TABLES:
            con.execute(f"DELETE FROM {table}")
        ids = [int(r[0]) for r in con.execute("SELECT experiment_id FROM experiments").fetchall()]
    else:
        ids = sorted({int(i) for i in experiment_ids})
        forget(con, ids)
    if not ids:
        return 0
    # a list parameter, not a registered numpy array: ingest (and so `riskcov runs`) stays numpy-free
    con.execute(
        "CREATE OR REPLACE TEMP TABLE mat_experiments AS SELECT unnest(?::INTEGER[]) AS experiment_id",
        [ids],
    )
    # a few CSFs at a time: the scored relation of a 100,000-participant run under every CSF
    # would hold ~20 M rows at once; each CSF's series are independent of the others'
    item_csfs, sample_csfs = _csfs(con)
    csfs = sorted(set(item_csfs) | set(sample_csfs))
    units = one(
        con.execute(
            "SELECT (SELECT count(*) FROM items SEMI JOIN mat_experiments USING (experiment_id)), "
            "(SELECT count(*) FROM samples SEMI JOIN mat_experiments USING (experiment_id))"
        )
    )
    items = int(units[0]) if units else 0
    per_csf = 2 * (items + int(units[1])) if units else 0  # two losses at most
    # the point-estimate sample once per refresh, not once per macro of every round
    con.execute("CREATE OR REPLACE TEMP TABLE mat_units AS FROM warehouse_units('mat_experiments')")
    size = max(1, ROWS_PER_CHUNK // max(per_csf, 1))
    per_join = max(size, ITEM_CELLS_PER_JOIN // max(items, 1))
    held: set[str] = set()
    for start in range(0, len(csfs), size):
        some = csfs[start : start + size]
        scored = [c for c in some if c in item_csfs]
        if not held.issuperset(scored):
            # the items under this round's CSFs and the next ones', every CSF in one join
            group = [c for c in csfs[start:] if c in item_csfs][:per_join]
            con.execute(
                "CREATE OR REPLACE TEMP TABLE mat_item_csfs AS "
                + columns_sql(group, f"experiment_id IN ({id_list(ids)})")
            )
            held = set(group)
        score_round(con, scored, [c for c in some if c in sample_csfs], first=start == 0)
    if csfs:
        _metrics(con, ids)
    row = one(con.execute(f"SELECT count(*) FROM metrics WHERE experiment_id IN ({id_list(ids)})"))
    # on an error the caller's rollback removes them with everything else
    for name in _TEMP:
        con.execute(f"DROP TABLE IF EXISTS temp.{name}")
    return int(row[0]) if row else 0


def _csfs(con: duckdb.DuckDBPyConnection) -> tuple[list[str], list[str]]:
    """The CSFs of the items and of the samples of the experiments in TEMP TABLE
    mat_experiments, each sorted. Every CSF of
    v_csf_confidences scores every item, so one participant per experiment names them all;
    its ids as literals let the filter reach both sides of each CSF's join of items with
    item_signals (a semi join scanned item_signals whole for every CSF); v_sample_confidences
    has one row per score row (sample_scores names them without a join)."""
    firsts = con.execute(
        "SELECT experiment_id, min(participant_id) FROM items "
        "SEMI JOIN mat_experiments USING (experiment_id) GROUP BY experiment_id ORDER BY experiment_id"
    ).fetchall()
    one_each = " OR ".join(f"(experiment_id = {int(e)} AND participant_id = {int(p)})" for e, p in firsts)
    queries = (
        f"SELECT DISTINCT csf FROM v_csf_confidences WHERE {one_each or 'false'} ORDER BY csf",
        "SELECT DISTINCT csf FROM sample_scores "
        "WHERE experiment_id IN (SELECT experiment_id FROM mat_experiments) ORDER BY csf",
    )
    items, samples = ([str(r[0]) for r in con.execute(q).fetchall()] for q in queries)
    return items, samples


ALL_POINTS_SQL = (
    "CREATE OR REPLACE TEMP VIEW mat_all_points AS "
    "SELECT k.series, p.* EXCLUDE (experiment_id, csf, loss) FROM rc_points AS p "
    "JOIN mat_series AS k USING (experiment_id, csf, loss) "
    "WHERE p.experiment_id IN ({ids})"
)


def _metrics(con: duckdb.DuckDBPyConnection, ids: list[int]) -> None:
    """Insert the metrics of every round's series at once, on one thread (as `evaluate` sums
    a block's areas: in point order, reproducible to the last bit)."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE mat_harmonic AS "
        "FROM rc_harmonic((SELECT coalesce(max(n_total), 0) FROM mat_all_totals))"
    )
    # every round's points as rc_points holds them, in the order they were inserted (a scan
    # of rc_points is in insertion order, and a join probing with it on one thread keeps it:
    # DuckDB's behaviour, not a SQL guarantee, so a test holds the rows to those of the points
    # sorted explicitly, bit for bit: test_materialise's ALL_POINTS test)
    con.execute(ALL_POINTS_SQL.format(ids=id_list(ids)))
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
