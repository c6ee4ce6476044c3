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

from riskcov.warehouse.csf_columns import columns_sql, literal, rows_sql
from riskcov.warehouse.duckdb_helpers import bounded_memory, memory_share, one, one_thread

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


def _id_list(ids: Iterable[int]) -> str:
    return ", ".join(str(int(i)) for i in ids)


def forget(con: duckdb.DuckDBPyConnection, experiment_ids: Iterable[int]) -> None:
    """Delete the metrics and RC points of these experiments."""
    listed = _id_list(experiment_ids)
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
                + columns_sql(group, f"experiment_id IN ({_id_list(ids)})")
            )
            held = set(group)
        _some_csfs(con, scored, [c for c in some if c in sample_csfs], first=start == 0)
    if csfs:
        _metrics(con, ids)
    row = one(con.execute(f"SELECT count(*) FROM metrics WHERE experiment_id IN ({_id_list(ids)})"))
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


def _some_csfs(con: duckdb.DuckDBPyConnection, items: list[str], samples: list[str], *, first: bool) -> None:
    """Insert the RC points of these CSFs (`items` scored in TEMP TABLE mat_item_csfs, the
    score columns `samples`) for the experiments in TEMP TABLE mat_experiments and
    keep what the metrics need: the totals of every round (mat_all_totals), the series keys
    (mat_series) and one series' units per population (mat_oracle, all rc_oracle reads)."""
    # literals, not a parameter: the optimizer folds the test and prunes the other CSFs' branches
    listed = "[" + ", ".join(map(literal, samples)) + "]"
    parts = [rows_sql("mat_item_csfs", items)] if items else []
    if samples:
        parts.append(f"FROM warehouse_sample_confidences('mat_experiments', {listed})")
    # the items' rows are read from mat_item_csfs by the two statements that need them (a view:
    # copying them was the dearer part); the samples' are computed once (a join of two tables)
    kind = "TABLE" if samples else "VIEW"
    con.execute(f"CREATE OR REPLACE TEMP {kind} mat_confidences AS " + " UNION ALL ".join(parts))
    # series keys go on from the last round's, so each round's rows follow the previous ones
    last = None if first else one(con.execute("SELECT max(series) FROM mat_series"))
    start = int(last[0]) + 1 if last and last[0] is not None else 1
    # warehouse_scored joins the units with their series keys on (experiment_id, csf): the CSF
    # as a small integer code on both sides (a VARCHAR key hashed for each of the round's units
    # was the dearest part of that join; warehouse_scored's rows carry no csf)
    whens = " ".join(f"WHEN {literal(c)} THEN {k}" for k, c in enumerate(items + samples))
    code = f"CASE csf {whens} END"
    con.execute(
        f"CREATE OR REPLACE TEMP VIEW mat_coded AS SELECT * REPLACE ({code} AS csf) FROM mat_confidences"
    )
    # the series of one experiment and CSF (its losses) share their units (warehouse_sources):
    # only the sources' are scored, the others read theirs (mat_shared, rc_points_once)
    steps = (
        f"TABLE mat_round AS FROM warehouse_series('mat_confidences', 'mat_experiments', {start})",
        "TABLE mat_sources AS FROM warehouse_sources('mat_round')",
        f"TABLE mat_scored AS WITH keys AS (SELECT * REPLACE ({code} AS csf) FROM mat_round "
        "WHERE series IN (SELECT source FROM mat_sources)) FROM warehouse_scored('mat_coded', 'keys')",
        "VIEW mat_shared AS FROM warehouse_shared_scored('mat_scored', 'mat_round')",
        # a series' population and scale: one unit of its source is enough, not a scan of them all
        "TABLE mat_round_series AS WITH one AS (SELECT DISTINCT ON (series) * FROM mat_scored), "
        "shared AS (FROM warehouse_shared_scored('one', 'mat_round')) FROM rc_series('shared')",
    )
    for step in steps:
        con.execute("CREATE OR REPLACE TEMP " + step)
    con.execute("DROP VIEW temp.mat_coded")
    con.execute(f"DROP {kind} temp.mat_confidences")
    new = _people(con, first=first)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE mat_totals AS "
        "FROM rc_totals_of('mat_round_series', 'mat_people', 'mat_units')"
    )
    kinds = one(con.execute("SELECT count(DISTINCT exact), bool_and(exact) FROM mat_totals"))
    # when every block is exact (integer losses) each series is sorted once (rc_points_once:
    # the same rows as rc_points, which sorts the cells twice)
    points = (
        "rc_points_once('mat_scored', 'mat_units', 'mat_totals', 'mat_sources')"
        if kinds and kinds[1]
        else "rc_points('mat_shared', 'mat_units', 'mat_totals')"
    )
    # the round's series are numbered from `start` in (experiment_id, csf, loss) order, and
    # each of rc_running's two paths gives its blocks in (series, replicate, plateau) order:
    # the keys by position, not by a join (after which every point had to be sorted again);
    # only a round with both kinds of blocks (the inexact ones come last) needs the sort. The
    # points go straight into rc_points, which the metrics read back (_metrics): a TEMP copy of
    # every round's points would hold a row per plateau of every series until the last round
    keys = con.execute(
        "SELECT list(experiment_id ORDER BY series), list(csf ORDER BY series), "
        "list(loss ORDER BY series), count(*), min(series), max(series) FROM mat_round"
    ).fetchone()
    if keys and keys[3]:
        if keys[5] - keys[4] + 1 != keys[3]:
            raise RuntimeError("the series of a round are not numbered consecutively")
        at = f"(series - {int(keys[4]) - 1})"
        con.execute(
            "INSERT INTO rc_points BY NAME SELECT "
            f"(?::INTEGER[])[{at}] AS experiment_id, (?::VARCHAR[])[{at}] AS csf, "
            f"(?::VARCHAR[])[{at}] AS loss, * EXCLUDE (series) "
            f"FROM {points}" + (" ORDER BY series, replicate, plateau" if kinds and kinds[0] > 1 else ""),
            [keys[0], keys[1], keys[2]],
        )
    _keep(con, "mat_series", "SELECT * FROM mat_round", first=first)
    # what the class-balanced metrics weight (per-sample experiments with labels only): a round
    # without a sample CSF holds items only, which have none (the first round still makes the table)
    if first or samples:
        _keep(con, "mat_class_cells", "FROM warehouse_class_cells('mat_shared', 'mat_round')", first=first)
    _keep(con, "mat_all_totals", "SELECT * FROM mat_totals", first=first)
    # the oracle ignores confidence: the predicted units of a population's first series are all
    # it needs, and of them only the columns rc_loss_counts reads (kept until the last round)
    oracle = (
        "SELECT series, population, participant_id, loss, loss_scale FROM mat_shared "
        "WHERE loss IS NOT NULL AND series IN (SELECT min(series) FROM mat_series GROUP BY population)"
    )
    if new:  # only a population's first series has units for it
        _keep(con, "mat_oracle", oracle, first=first)
    con.execute("DROP VIEW temp.mat_shared")


def _keep(con: duckdb.DuckDBPyConnection, name: str, query: str, *, first: bool) -> None:
    """TEMP TABLE `name` of the query's rows in the first round, the rows appended in the
    others; rc_points keeps each block contiguous and in plateau order, and appending (in the
    order of the scan: preserve_insertion_order) keeps it so."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {query}" if first else f"INSERT INTO {name} {query}")


def _people(con: duckdb.DuckDBPyConnection, *, first: bool) -> bool:
    """Per population and participant, the sums rc_totals_of weights (rc_people): they do not
    depend on the CSF, so each population's are computed in the first round that has it and
    kept for the next rounds (they were recomputed from every round's scored rows). Whether the
    round has a population no round before had."""
    if first:
        con.execute("CREATE OR REPLACE TEMP TABLE mat_people AS FROM rc_people('mat_shared')")
        return True
    # the round's populations from its few series keys, not from a scan of its scored units
    # against every participant's sums (each population is usually known after the first round)
    new = [
        int(r[0])
        for r in con.execute(
            "SELECT DISTINCT population FROM mat_round WHERE population NOT IN "
            "(SELECT population FROM mat_series) ORDER BY population"
        ).fetchall()
    ]
    if not new:
        return False
    con.execute(
        f"CREATE OR REPLACE TEMP VIEW mat_new_scored AS FROM mat_shared WHERE population IN ({_id_list(new)})"
    )
    con.execute("INSERT INTO mat_people FROM rc_people('mat_new_scored')")
    con.execute("DROP VIEW temp.mat_new_scored")
    return True


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
    con.execute(ALL_POINTS_SQL.format(ids=_id_list(ids)))
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
