"""Per-sample tables (docs/formats.md): read a CSV, Parquet or JSONL file, validate it, stage it.

`stage_samples` reads the file with DuckDB's own readers (CSV cells all as text, so every type
decision and message is ours, not the sniffer's; a Parquet file is read in place), checks the
header, types every column in one SQL pass, reports the first problem in file order (lowest
row, then leftmost column) as one line, and only then lays the rows out for `fill`
(`riskcov.formats.per_sample.store_rows`). For inspection it leaves two TEMP VIEWs, computed when read:

- `staged_samples`: one row per sample, with its experiment (method, seed, split, domain),
  `row_number` (1-based data row of the file), `sample_index` (0-based, file order within
  its experiment), `sample_id`, `cluster` and `cluster_no` (dense rank 1..C of the cluster
  within its experiment: numeric order for an integer column, else text order; docs/metrics.md's
  sorted participants), `abstained`, `loss`, `label`, `prediction`, `prob`;
- `staged_scores`: one row per sample and score column (`confidence` is CSF `confidence`,
  `confidence_<name>` is CSF `<name>`); NULL for an abstained sample, whatever the file says;
- `staged_attributes`: one row per sample and attribute column (`name`, `value` as text).

Decisions: a null in a present method/seed/split/domain/cluster/abstained column is an error
(a default applies only to a missing column); the loss columns are required on every row,
abstained or not; with `loss` or `correct` given, `label` and `prediction` are kept as class
ids; any other column is an attribute (text; numbers and booleans as text; null allowed),
stored in `sample_attributes` for `evaluate --group`, unless its name is close to a known
column's (a typo would otherwise drop a score or a loss silently: it is refused). Ids are
integers when the column is typed as integers, or, in a CSV, when every value is spelled as
one. Booleans are `true`/`false` (any case) or 0/1.

>>> import duckdb, tempfile
>>> d = Path(tempfile.mkdtemp())
>>> _ = (d / "m.csv").write_text("sample_id,confidence,correct\\n1,0.9,true\\n2,0.2,0\\n")
>>> con = duckdb.connect()
>>> staged = stage_samples(con, d / "m.csv", SampleDefaults())
>>> staged.csfs, staged.loss_source, staged.experiments[0]
(('confidence',), 'correct', SampleExperiment(method='m', seed=0, split='test', domain='id', \
n_samples=2, n_abstained=0))
>>> con.sql("SELECT sample_id, loss FROM staged_samples ORDER BY row_number").fetchall()
[('1', 0.0), ('2', 1.0)]
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import nullcontext, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import duckdb

from riskcov.errors import InputError, UsageError
from riskcov.formats.per_sample.column_checks import (
    FLOAT,
    INT,
    RAW,
    TEXT,
    TYPED,
    Source,
    canonical_integers,
    id_key,
    literal,
    show,
    typed_sql,
)
from riskcov.formats.per_sample.header import Plan, plan_columns
from riskcov.formats.per_sample.raw_table import FORMATS, read_raw, reason
from riskcov.formats.per_sample.store_rows import (
    EXPS,
    ORDERED,
    Layout,
    drop,
    experiments,
    inspection_views,
    rows_in_order,
)

_EXPERIMENT = "method, seed, split, domain"
_STAGED = ("staged_samples", "staged_scores", "staged_attributes", RAW, TYPED, EXPS, ORDERED)


@dataclass(frozen=True)
class SampleDefaults:
    """Values for the experiment columns a file lacks (None: the file's stem, 0, `test`, `id`)."""

    method: str | None = None
    seed: int | None = None
    split: str | None = None
    domain: str | None = None

    def __post_init__(self) -> None:
        if self.method == "" or self.split == "":
            raise UsageError("a default method or split must not be empty")
        if self.seed is not None and (type(self.seed) is not int or not -(2**63) <= self.seed < 2**63):
            raise UsageError(f"default seed {self.seed!r} is not a 64-bit integer")
        if self.domain not in (None, "id", "ood"):
            raise UsageError(f'default domain "{self.domain}" is not id or ood')


class SampleExperiment(NamedTuple):
    """One (method, seed, split, domain) of a staged file and its sample counts."""

    method: str
    seed: int
    split: str
    domain: str
    n_samples: int
    n_abstained: int


@dataclass(frozen=True)
class StagedSamples:
    """What `stage_samples` found: CSFs (sorted), loss source, experiments (sorted), columns."""

    path: Path
    n_rows: int
    csfs: tuple[str, ...]
    loss_source: str  # "loss" | "correct" | "label_prediction"
    experiments: tuple[SampleExperiment, ...]
    columns: tuple[str, ...]  # the file's columns, in file order
    numeric_clusters: bool  # cluster_no follows numeric order (else text order)
    layout: Layout  # where `fill` finds the rows

    @property
    def attributes(self) -> tuple[str, ...]:
        """The attribute columns (docs/formats.md), in file order."""
        return self.layout.attributes

    @property
    def has_prob(self) -> bool:
        return "prob" in self.columns

    @property
    def has_cluster(self) -> bool:
        return "cluster" in self.columns

    @property
    def has_abstained(self) -> bool:
        return "abstained" in self.columns

    @property
    def has_label(self) -> bool:
        return "label" in self.columns

    @property
    def has_prediction(self) -> bool:
        return "prediction" in self.columns


def _cluster_order(con: duckdb.DuckDBPyConnection, plan: Plan, is_csv: bool) -> tuple[bool, str]:
    """Whether clusters sort as numbers, and the SQL of their numeric key (NULL when not)."""
    src = plan.get("cluster") or plan.get("sample_id")
    assert src is not None  # plan_columns requires sample_id
    numeric = src.kind in (INT, FLOAT)
    if src.kind == TEXT and is_csv:
        numeric = bool(con.execute(f"SELECT {canonical_integers(src)} FROM {RAW}").fetchone() == (True,))
    return numeric, id_key(src) if numeric else "CAST(NULL AS HUGEINT)"


def _raise_first_problem(con: duckdb.DuckDBPyConnection, path: Path, plan: Plan) -> None:
    """The first problem in file order: lowest row, then leftmost column; repeated ids included."""
    found = con.execute(f"""SELECT row_number, problem_at, problem FROM {TYPED}
        WHERE problem IS NOT NULL ORDER BY row_number LIMIT 1""").fetchone()
    # cheap first: no two rows of an experiment share a hash of their key, so no id repeats
    hashed = con.execute(f"""SELECT count(*) FROM (SELECT hash({_EXPERIMENT}, sample_id) FROM {TYPED}
        GROUP BY ALL HAVING count(*) > 1)""").fetchone()
    repeat = None
    if hashed != (0,):
        # a repeat is the second row of an (experiment, sample_id) group; an aggregate, not a window
        sid = show(Source("sample_id", "t.sample_id", TEXT))
        repeat = con.execute(f"""SELECT t.row_number, 'column sample_id: value ' || {sid}
                || ' repeats row ' || d.first_row || ' of experiment (method ' || t.method || ', seed '
                || t.seed || ', split ' || t.split || ', domain ' || t.domain || ')'
            FROM {TYPED} t JOIN (SELECT {_EXPERIMENT}, sample_id, min(row_number) AS first_row
                FROM {TYPED} GROUP BY ALL HAVING count(*) > 1) d USING ({_EXPERIMENT}, sample_id)
            WHERE t.row_number > d.first_row ORDER BY t.row_number LIMIT 1""").fetchone()
    sample_at = next(i for i, s in enumerate(plan.order) if s.name == "sample_id")
    # same row: the repeat belongs to the sample_id column, after its own (null) check
    if found is not None and (repeat is None or (found[0], found[1]) <= (repeat[0], sample_at)):
        raise InputError(f"{path}: row {found[0]}, {found[2]}")
    if repeat is not None:
        raise InputError(f"{path}: row {repeat[0]}, {repeat[1]}")


def stage_samples(
    con: duckdb.DuckDBPyConnection, path: Path, defaults: SampleDefaults, reader: str | None = None
) -> StagedSamples:
    """Validate a per-sample table, lay its rows out for `fill` and (re)create the TEMP VIEWs
    staged_samples and staged_scores. `reader` is the path DuckDB reads (riskcov.ingest passes
    the opened file's descriptor, so no glob or `~` in `path` is expanded); default `path`.

    Raises InputError (one line: file, row, column, value) on the first problem in file order,
    leaving nothing staged behind (nor from an earlier call); UsageError for a file name that
    is not a per-sample table.
    """
    drop(con, *_STAGED)
    if path.suffix.lower() not in FORMATS:
        raise UsageError(
            f"{path}: not a per-sample table: the name must end in .csv, .parquet, .jsonl or .ndjson"
        )
    if reader is None and not path.is_file():
        raise InputError(f"{path}: no such file")
    if os.stat(reader or path).st_size == 0:
        raise InputError(f"{path}: no data rows")

    def read() -> tuple[list[Source], str]:
        try:
            return read_raw(con, path, reader or str(path))
        except InputError as exc:
            raise InputError(f"{path}: {exc}") from None
        except duckdb.Error as exc:
            why = reason(exc).replace(reader or str(path), str(path))
            raise InputError(f"{path}: unreadable {FORMATS[path.suffix.lower()]}: {why}") from None

    return stage(con, path, read, defaults, path.stem, is_csv=path.suffix.lower() == ".csv")


def _refuse_stored_names(con: duckdb.DuckDBPyConnection, label: Path, csfs: dict[str, Source]) -> None:
    """A score column named as a stored CSF would be evaluated under that name instead of it,
    silently (`csf add` refuses the same clash the other way round: docs/calibration.md)."""
    # a connection that is no warehouse (the stage's own tests) has no user_csfs; asked, not
    # tried: a failed statement would abort the caller's transaction
    store = "SELECT 1 FROM duckdb_tables() WHERE table_name = 'user_csfs' AND schema_name = 'main'"
    if not con.execute(store + " AND NOT temporary AND database_name = current_database()").fetchone():
        return
    row = con.execute("SELECT min(name) FROM user_csfs WHERE list_contains(?, name)", [list(csfs)]).fetchone()
    if row and row[0] is not None:
        name = str(row[0])
        raise InputError(
            f"{label}: column {csfs[name].name}: {name} is a stored CSF (riskcov csf list), which "
            f"this column would replace in the run's evaluations; rename the column, or remove the "
            f"CSF first (riskcov csf remove {name})"
        )


def stage(
    con: duckdb.DuckDBPyConnection,
    label: Path,
    read: Callable[[], tuple[list[Source], str]],
    defaults: SampleDefaults,
    default_method: str,
    *,
    is_csv: bool = False,
) -> StagedSamples:
    """`stage_samples` once the source is known: `read` creates RAW and returns its columns and
    the SQL of its row number; `label` names the source in messages (a file, or the Python
    API's `data`); `default_method` is the method of rows without a method column."""
    drop(con, *_STAGED)
    kept_order = con.execute("SELECT current_setting('preserve_insertion_order')").fetchone() == (True,)
    staged = False
    try:
        if not kept_order:  # row numbers are the raw table's row ids: its rows must keep file order
            con.execute("SET preserve_insertion_order = true")
        sources, row_number = read()
        counted = con.execute(f"SELECT count(*) FROM {RAW}").fetchone()
        n_rows = int(counted[0]) if counted else 0
        if n_rows == 0:
            raise InputError(f"{label}: no data rows")
        plan = plan_columns(label, sources)
        _refuse_stored_names(con, label, plan.csfs)
        numeric, key = _cluster_order(con, plan, is_csv)
        d = defaults
        experiment = {
            "method": literal(d.method if d.method is not None else default_method),
            "seed": f"CAST({d.seed or 0} AS BIGINT)",
            "split": literal(d.split or "test"),
            "domain": literal(d.domain or "id"),
        }
        con.execute(typed_sql(plan, experiment, key, row_number))
        drop(con, RAW)
        _raise_first_problem(con, label, plan)
        found = experiments(con)
        layout = rows_in_order(con, tuple(plan.csfs), numeric, tuple(a.name for a in plan.attributes))
        inspection_views(con, layout, "cluster_key" if numeric else "cluster")
        staged = True
    finally:
        # after a failure inside the caller's transaction (an evaluate's input ingested on the
        # fly) DuckDB refuses every statement until ROLLBACK, which drops these anyway: the
        # failure, not "transaction is aborted", is what the caller gets
        with nullcontext() if staged else suppress(duckdb.Error):
            drop(con, RAW, EXPS, *(() if staged else _STAGED))
            if not kept_order:
                con.execute("SET preserve_insertion_order = false")
    return StagedSamples(
        path=label,
        n_rows=n_rows,
        csfs=tuple(plan.csfs),
        loss_source=plan.loss_source,
        experiments=tuple(SampleExperiment(*row) for row in found),
        columns=tuple(s.name for s in sources),
        numeric_clusters=numeric,
        layout=layout,
    )
