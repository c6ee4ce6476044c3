"""One round of the metric tables' refresh (riskcov.warehouse.metric_tables): a few CSFs'
units scored, their RC points inserted into `rc_points`, and what the metrics of every round
read at the end kept in TEMP tables (the totals, the series keys, the oracle's units, the
class cells, each population's per-participant sums)."""

from __future__ import annotations

from collections.abc import Iterable

import duckdb

from riskcov.warehouse.csf_columns import literal, rows_sql
from riskcov.warehouse.duckdb_helpers import one


def id_list(ids: Iterable[int]) -> str:
    """Integer ids as a SQL list's elements.

    >>> id_list([3, 1])
    '3, 1'
    """
    return ", ".join(str(int(i)) for i in ids)


def score_round(con: duckdb.DuckDBPyConnection, items: list[str], samples: list[str], *, first: bool) -> None:
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
        f"CREATE OR REPLACE TEMP VIEW mat_new_scored AS FROM mat_shared WHERE population IN ({id_list(new)})"
    )
    con.execute("INSERT INTO mat_people FROM rc_people('mat_new_scored')")
    con.execute("DROP VIEW temp.mat_new_scored")
    return True
