"""Per-sample rows in storage order (docs/formats.md): from the validated TYPED table to `samples`,
`sample_scores` and `sample_attributes`, with as few passes over the rows as the file allows.

The warehouse keeps a run's rows in (experiment, file order) for `samples` and (experiment,
CSF, file order) for `sample_scores`. Each experiment is one block of rows: `rows_in_order`
finds where each block starts; when the file already has its experiments one after the other
in sorted order (one experiment per file, or a file written sorted) TYPED itself is that
layout, otherwise one sort makes a copy (ORDERED) that is. `store` then writes each block with
its own INSERT (a rowid range, so DuckDB skips the other row groups; the sample index is the
row's offset in its block): no join on sample ids and no sort of the 3 x 5 M score rows.
Beyond `SLICED_MAX` experiments, one INSERT per table over ORDERED replaces the statements per
block (the scores then take one sort).

The statements are the templates of sql/per_sample/ (riskcov.formats.per_sample.sql_templates),
filled with the table names and the file's score and attribute columns.

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
from riskcov.formats.per_sample.sql_templates import render

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
    con.execute(render("experiments", experiments=EXPS, typed=TYPED, base=first_rowid(con, TYPED)))
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
        con.execute(render("ordered", ordered=ORDERED, typed=TYPED, experiments=EXPS))
        drop(con, TYPED)
    return Layout(
        table, first_rowid(con, table), starts, counts, tuple(csfs), numeric_clusters, tuple(attributes)
    )


def inspection_views(con: duckdb.DuckDBPyConnection, layout: Layout, cluster_order: str) -> None:
    """TEMP VIEWs staged_samples, staged_scores and staged_attributes over the layout (see
    `stage_samples`); they are computed only when read, so the ingest itself never pays for their windows."""
    con.execute(render("staged_samples", table=layout.table, cluster_order=cluster_order))
    scores = columns_as_rows(layout.table, layout.csfs, "s", "csf", "confidence")
    con.execute(f"CREATE TEMP VIEW staged_scores AS {scores}")
    attributes = columns_as_rows(layout.table, layout.attributes, "a", "name", "value")
    none = render("staged_column", table=layout.table, name="''", column="label", key="name", value="value")
    con.execute(f"CREATE TEMP VIEW staged_attributes AS {attributes or none + ' WHERE false'}")


def columns_as_rows(table: str, names: Sequence[str], prefix: str, key: str, value: str) -> str:
    """The staged columns {prefix}0, {prefix}1, ... of `table` as one relation of rows (sample,
    `key` = the column's name, `value`): template staged_column per column, by UNION ALL; ""
    without columns.

    >>> print(columns_as_rows("t", ["a", "b"], "s", "csf", "confidence"))  # doctest: +NORMALIZE_WHITESPACE
    SELECT method, seed, split, domain, sample_id, 'a' AS csf, s0 AS confidence FROM t
    UNION ALL
    SELECT method, seed, split, domain, sample_id, 'b' AS csf, s1 AS confidence FROM t
    """
    parts = [
        _statement("staged_column", table=table, name=literal(n), column=f"{prefix}{j}", key=key, value=value)
        for j, n in enumerate(names)
    ]
    return "\nUNION ALL\n".join(parts)


def _statement(template: str, /, **fields: object) -> str:
    """A template's statement without its header comments (to be joined into a larger one)."""
    return "\n".join(line for line in render(template, **fields).splitlines() if not line.startswith("--"))


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
    columns = [
        ("samples", values),
        *(("sample_scores", f"{literal(csf)}, s{j}") for j, csf in enumerate(layout.csfs)),
        *(("sample_attributes", f"{literal(name)}, a{j}") for j, name in enumerate(layout.attributes)),
    ]
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
                for target, cells in columns:  # samples, then each score, then each attribute
                    block = {"table": t, "start": start, "last": start + n - 1}
                    con.execute(
                        render("insert_block", target=target, experiment_id=eid, values=cells, **block)
                    )
        else:  # t is ORDERED, with exp_no
            ids, starts = f"{list(experiment_ids)}", f"{[layout.base + s for s in layout.starts]}"
            con.execute(
                render("insert_all", target="samples", ids=ids, starts=starts, table=t, values=values)
            )
            csfs = "[" + ", ".join(literal(c) for c in layout.csfs) + "]"
            scores = "[" + ", ".join(f"s{j}" for j in range(len(layout.csfs))) + "]"
            n_csfs = len(layout.csfs)
            con.execute(
                render(
                    "insert_all_scores",
                    ids=ids,
                    starts=starts,
                    table=t,
                    csfs=csfs,
                    columns=scores,
                    n_csfs=n_csfs,
                )
            )
            for target, cells in columns[1 + n_csfs :]:
                con.execute(
                    render("insert_all", target=target, ids=ids, starts=starts, table=t, values=cells)
                )
    finally:
        con.execute(f"SET disabled_compression_methods = {literal(before)}")
        if not kept_order:
            con.execute("SET preserve_insertion_order = false")
