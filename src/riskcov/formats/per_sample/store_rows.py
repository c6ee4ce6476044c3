"""Per-sample rows in storage order (docs/formats.md): from the validated TYPED table to `samples` and
`sample_scores`, with as few passes over the rows as the file allows.

The warehouse keeps a run's rows in (experiment, file order) for `samples` and (experiment,
CSF, file order) for `sample_scores`. Each experiment is one block of rows: `rows_in_order`
finds where each block starts; when the file already has its experiments one after the other
in sorted order (one experiment per file, or a file written sorted) TYPED itself is that
layout, otherwise one sort makes a copy (ORDERED) that is. `store` then writes each block with
its own INSERT (a rowid range, so DuckDB skips the other row groups; the sample index is the
row's offset in its block): no join on sample ids and no sort of the 3 x 5 M score rows.
Beyond `SLICED_MAX` experiments, one INSERT per table over ORDERED replaces the statements per
block (the scores then take one sort).

Per-sample ids are mostly distinct, where DuckDB's dictionary+FSST string compression buys
little and costs time on every value (for sample_id and again for cluster):
`store` writes with that method disabled, so those columns are stored plain. The values stored
are the same either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate

import duckdb

from riskcov.formats.per_sample.column_checks import TYPED, literal

ORDERED, EXPS = "_riskcov_samples_ordered", "_riskcov_samples_experiments"
EXPERIMENT = "method, seed, split, domain"
# up to this many experiments, each is written by statements of its own (rowid ranges)
SLICED_MAX = 64


@dataclass(frozen=True)
class Layout:
    """Where the staged rows are: `table` (TYPED or ORDERED) holds each experiment as a block
    of rows in file order, starting at rowid `base + starts[k]` (experiments in sorted order)."""

    table: str
    base: int  # the table's first rowid (not 0 for a table made inside the open transaction)
    starts: tuple[int, ...]
    counts: tuple[int, ...]
    csfs: tuple[str, ...]  # column s{j} of `table` holds CSF csfs[j]
    numeric_clusters: bool
    attributes: tuple[str, ...] = ()  # column a{j} of `table` holds attribute attributes[j]


def drop(con: duckdb.DuckDBPyConnection, *names: str) -> None:
    """Drop the temp tables and views of these names that exist (never a table of the caller's
    database of the same name)."""
    found = con.execute(
        "SELECT 'VIEW', view_name FROM duckdb_views() WHERE temporary AND list_contains(?, view_name) "
        "UNION ALL SELECT 'TABLE', table_name FROM duckdb_tables() "
        "WHERE temporary AND list_contains(?, table_name) ORDER BY 1 DESC, 2",
        [list(names), list(names)],
    ).fetchall()
    for kind, name in found:
        con.execute(f'DROP {kind} temp.main."{name}"')


def first_rowid(con: duckdb.DuckDBPyConnection, table: str) -> int:
    """The rowid of a table's first row: 0, except for a table created inside the transaction
    still open, whose rows get row ids far above any committed row's (consecutive all the same)."""
    row = con.execute(f"SELECT min(rowid) FROM {table}").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def experiments(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int, str, str, int, int]]:
    """Create EXPS (one row per experiment of TYPED, `exp_no` 1.. in sorted order, where its
    rows are) and return (method, seed, split, domain, n, n_abstained) per experiment."""
    base = first_rowid(con, TYPED)
    con.execute(f"""CREATE TEMP TABLE {EXPS} AS
        SELECT *, row_number() OVER (ORDER BY {EXPERIMENT}) AS exp_no FROM (
            SELECT {EXPERIMENT}, count(*) AS n, count(*) FILTER (WHERE abstained) AS n_abstained,
                min(row_number) AS first_row, max(row_number) AS last_row,
                bool_and(rowid - {base} + 1 = row_number) AS by_rowid
            FROM {TYPED} GROUP BY ALL)""")
    return con.execute(f"SELECT {EXPERIMENT}, n, n_abstained FROM {EXPS} ORDER BY exp_no").fetchall()


def rows_in_order(
    con: duckdb.DuckDBPyConnection,
    csfs: Sequence[str],
    numeric_clusters: bool,
    attributes: Sequence[str] = (),
) -> Layout:
    """The layout of the staged rows: TYPED when its experiments are already consecutive
    blocks in sorted order (no copy), else ORDERED, TYPED sorted by (experiment, row)."""
    found = con.execute(f"SELECT n, first_row, last_row, by_rowid FROM {EXPS} ORDER BY exp_no").fetchall()
    counts = tuple(int(n) for n, *_ in found)
    starts = tuple(accumulate(counts, initial=0))[:-1]
    in_order = all(
        first == start + 1 and last == start + n and by_rowid
        for (n, first, last, by_rowid), start in zip(found, starts, strict=True)
    )
    table = TYPED
    if not in_order or len(found) > SLICED_MAX:
        table = ORDERED
        con.execute(f"""CREATE TEMP TABLE {ORDERED} AS SELECT t.*, e.exp_no FROM {TYPED} AS t
            JOIN {EXPS} AS e USING ({EXPERIMENT}) ORDER BY e.exp_no, t.row_number""")
        drop(con, TYPED)
    return Layout(
        table, first_rowid(con, table), starts, counts, tuple(csfs), numeric_clusters, tuple(attributes)
    )


def inspection_views(con: duckdb.DuckDBPyConnection, layout: Layout, cluster_order: str) -> None:
    """TEMP VIEWs staged_samples, staged_scores and staged_attributes over the layout (see
    `stage_samples`); they are computed only when read, so the ingest itself never pays for their windows."""
    by = f"PARTITION BY {EXPERIMENT}"
    con.execute(f"""CREATE TEMP VIEW staged_samples AS SELECT {EXPERIMENT}, row_number,
            row_number() OVER ({by} ORDER BY row_number) - 1 AS sample_index, sample_id, cluster,
            dense_rank() OVER ({by} ORDER BY {cluster_order}) AS cluster_no, abstained, loss, label,
            prediction, prob
        FROM {layout.table}""")
    scores = " UNION ALL ".join(
        f"SELECT {EXPERIMENT}, sample_id, {literal(csf)} AS csf, s{j} AS confidence FROM {layout.table}"
        for j, csf in enumerate(layout.csfs)
    )
    con.execute(f"CREATE TEMP VIEW staged_scores AS {scores}")
    attributes = " UNION ALL ".join(
        f"SELECT {EXPERIMENT}, sample_id, {literal(name)} AS name, a{j} AS value FROM {layout.table}"
        for j, name in enumerate(layout.attributes)
    )
    none = f"SELECT {EXPERIMENT}, sample_id, '' AS name, label AS value FROM {layout.table} WHERE false"
    con.execute(f"CREATE TEMP VIEW staged_attributes AS {attributes or none}")


@cache
def _dict_fsst() -> tuple[str, ...]:
    """("dict_fsst",) when this DuckDB has that compression method (tried on a connection of
    its own, so a refusal cannot abort the caller's transaction), else ()."""
    try:
        duckdb.connect().execute("SET disabled_compression_methods = 'dict_fsst'")
    except duckdb.Error:  # an older DuckDB: no such method, no such cost
        return ()
    return ("dict_fsst",)


def store(con: duckdb.DuckDBPyConnection, layout: Layout, experiment_ids: Sequence[int]) -> None:
    """Insert the staged rows into `samples` and `sample_scores` under the experiments' ids
    (in the order of the sorted experiments), each table in its storage order."""
    cluster_int = "CAST(cluster AS BIGINT)" if layout.numeric_clusters else "NULL"
    values = f"sample_id, cluster, {cluster_int}, abstained, loss, label, prediction, prob"
    t = layout.table
    row = con.execute(
        "SELECT current_setting('disabled_compression_methods'), current_setting('preserve_insertion_order')"
    ).fetchone()
    before, kept_order = (str(row[0]), bool(row[1])) if row else ("", True)
    if not kept_order:  # the INSERTs keep the staged table's row order
        con.execute("SET preserve_insertion_order = true")
    methods = ",".join(dict.fromkeys(filter(None, [*before.split(","), *_dict_fsst()])))
    con.execute(f"SET disabled_compression_methods = {literal(methods)}")
    try:
        if len(experiment_ids) <= SLICED_MAX:
            for eid, at, n in zip(experiment_ids, layout.starts, layout.counts, strict=True):
                start = layout.base + at
                block = f"FROM {t} WHERE rowid BETWEEN {start} AND {start + n - 1}"
                con.execute(f"INSERT INTO samples SELECT {eid}, rowid - {start}, {values} {block}")
                for j, csf in enumerate(layout.csfs):
                    score = f"{eid}, rowid - {start}, {literal(csf)}, s{j}"
                    con.execute(f"INSERT INTO sample_scores SELECT {score} {block}")
                for j, name in enumerate(layout.attributes):
                    attribute = f"{eid}, rowid - {start}, {literal(name)}, a{j}"
                    con.execute(f"INSERT INTO sample_attributes SELECT {attribute} {block}")
        else:  # t is ORDERED, with exp_no
            ids, starts = f"{list(experiment_ids)}", f"{[layout.base + s for s in layout.starts]}"
            key = f"{ids}[exp_no], rowid - {starts}[exp_no]"
            con.execute(f"INSERT INTO samples SELECT {key}, {values} FROM {t}")
            csfs = "[" + ", ".join(literal(c) for c in layout.csfs) + "]"
            scores = "[" + ", ".join(f"s{j}" for j in range(len(layout.csfs))) + "]"
            con.execute(f"""INSERT INTO sample_scores SELECT {ids}[exp_no], i, {csfs}[j], confidence
                FROM (SELECT exp_no, rowid - {starts}[exp_no] AS i, j, {scores}[j] AS confidence
                      FROM {t} CROSS JOIN range(1, {len(layout.csfs) + 1}) AS c(j))
                ORDER BY exp_no, j, i""")
            for j, name in enumerate(layout.attributes):
                con.execute(f"INSERT INTO sample_attributes SELECT {key}, {literal(name)}, a{j} FROM {t}")
    finally:
        con.execute(f"SET disabled_compression_methods = {literal(before)}")
        if not kept_order:
            con.execute("SET preserve_insertion_order = false")
