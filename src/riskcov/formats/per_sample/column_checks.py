"""SQL for one column of a per-sample table (docs/formats.md): its typed value and what is wrong with it.

A source column reaches these builders in one of four kinds: `text` (every CSV cell, every
string, and a JSON column whose values mix types), `int`, `float` or `bool` (typed Parquet and
JSON columns). A *role* turns a kind into the staged type: `parse` gives the value, or NULL
when it does not fit; `problem` gives the message for the first thing wrong with a value, or
NULL. Both are plain SQL expressions, so a million rows are checked in one vectorised scan
instead of a Python loop. Text is parsed (the CSV has no types); typed values are taken as
typed, so a JSON `true` is not a number even though the CSV text `1` is.

>>> import duckdb
>>> seed = Source("seed", "c0", TEXT)
>>> sql = f"SELECT {parse(INTEGER, seed)} FROM (VALUES ('7'), ('1.0'), ('1.5'), ('x')) t(c0)"
>>> duckdb.sql(sql).fetchall()
[(7,), (1,), (None,), (None,)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from riskcov.formats.per_sample.header import Plan

TEXT, INT, FLOAT, BOOL = "text", "int", "float", "bool"
# roles: what a column must hold
NUMBER, INTEGER, FLAG, NAME, DOMAIN, ID = "number", "integer", "flag", "name", "domain", "id"
# an integral double names an integer id only while it is exact
_MAX_EXACT = 9007199254740992
_SHOW_MAX = 40
RAW, TYPED = "_riskcov_samples_raw", "_riskcov_samples_typed"
_NULL = "'value is null'"
# column -> role, message for a null (SQL; NULL: allowed), bound; a score column is a NUMBER
_RULES: dict[str, tuple[str, str, str]] = {
    "sample_id": (ID, _NULL, ""),
    "cluster": (ID, _NULL, ""),
    "method": (NAME, _NULL, ""),
    "split": (NAME, _NULL, ""),
    "seed": (INTEGER, _NULL, ""),
    "domain": (DOMAIN, _NULL, ""),
    "abstained": (FLAG, _NULL, ""),
    "correct": (FLAG, _NULL, ""),
    "loss": (NUMBER, _NULL, "nonneg"),
    "prob": (NUMBER, "NULL", "unit"),
    "label": (NAME, "NULL", ""),
    "prediction": (NAME, "NULL", ""),
}


@dataclass(frozen=True)
class Source:
    """A column of the file: its header name, its column in the raw table, its kind."""

    name: str
    sql: str
    kind: str
    nested: str = ""  # SQL of RAW's column: the value is a JSON object or list ("" when it cannot be)


def literal(text: str) -> str:
    """`text` as a SQL string literal.

    >>> literal("it's")
    "'it''s'"
    """
    return "'" + text.replace("'", "''") + "'"


def _number_text(x: str) -> str:
    # DuckDB's double parser also takes digit separators ("1_000"), which no CSV writer means
    return f"TRY_CAST(CASE WHEN contains({x}, '_') THEN NULL ELSE {x} END AS DOUBLE)"


def show(src: Source) -> str:
    """SQL for the value as a message shows it: numbers and booleans bare, other text quoted.

    Quoting goes through JSON escaping so a value holding a newline still gives a one-line
    message; long values are cut.

    >>> import duckdb
    >>> e = show(Source(ID, "c0", TEXT))
    >>> duckdb.sql(f"SELECT {e} FROM (VALUES ('2'), ('a3'), ('a\\nb')) t(c0)").fetchall()
    [('2',), ('"a3"',), ('"a\\\\nb"',)]
    """
    x = src.sql
    if src.kind == TEXT:
        bare = (
            f"regexp_full_match({x}, '[-+.0-9a-zA-Z]+') "
            f"AND ({_number_text(x)} IS NOT NULL OR lower({x}) IN ('true', 'false'))"
        )
        shown = f"CASE WHEN {bare} THEN {x} ELSE CAST(to_json({x}) AS VARCHAR) END"
    else:
        shown = f"CAST({x} AS VARCHAR)"
    cut = f"left({shown}, {_SHOW_MAX - 3}) || '...'"
    return f"(CASE WHEN length({shown}) > {_SHOW_MAX} THEN {cut} ELSE {shown} END)"


def _integral(src: Source) -> str:
    """SQL: the value is a finite whole number (whatever its range)."""
    x = src.sql
    if src.kind == TEXT:
        d = _number_text(x)
        return f"(isfinite({d}) AND {d} = trunc({d}))"
    if src.kind == FLOAT:
        return f"(isfinite({x}) AND {x} = trunc({x}))"
    return "true" if src.kind == INT else "false"


def parse(role: str, src: Source) -> str:
    """SQL for the typed value of `src` in `role`, NULL where the value does not fit."""
    x, kind = src.sql, src.kind
    if role == NUMBER:
        return {TEXT: _number_text(x), BOOL: "CAST(NULL AS DOUBLE)"}.get(kind, f"CAST({x} AS DOUBLE)")
    if role == INTEGER:
        if kind == BOOL:
            return "CAST(NULL AS BIGINT)"
        # a bare TRY_CAST to BIGINT would round "1.5" to 2
        target = f"trim({x})" if kind == TEXT else x
        return f"CASE WHEN {_integral(src)} THEN TRY_CAST({target} AS BIGINT) END"
    if role == FLAG:
        if kind == BOOL:
            return x
        number = _number_text(x) if kind == TEXT else x
        as_flag = f"CASE {number} WHEN 1 THEN true WHEN 0 THEN false END"
        if kind == TEXT:
            return f"CASE lower(trim({x})) WHEN 'true' THEN true WHEN 'false' THEN false ELSE {as_flag} END"
        return as_flag
    if role in (NAME, DOMAIN):
        if kind == FLOAT:
            return f"CASE WHEN isfinite({x}) THEN CAST({x} AS VARCHAR) END"
        return x if kind == TEXT else f"CAST({x} AS VARCHAR)"
    if role == ID:
        if kind == FLOAT:
            exact = f"{_integral(src)} AND abs({x}) <= {_MAX_EXACT}"
            return f"CASE WHEN {exact} THEN CAST(CAST({x} AS BIGINT) AS VARCHAR) END"
        return x if kind == TEXT else f"CAST({x} AS VARCHAR)"
    raise ValueError(f"unknown role {role}")


def id_key(src: Source) -> str:
    """SQL for the numeric sort key of an integer id column (its participants' order, docs/metrics.md)."""
    return f"TRY_CAST({src.sql} AS HUGEINT)"


def canonical_integers(src: Source) -> str:
    """SQL aggregate: every value of a text id column is an integer as a writer spells one.

    `007` and `+7` do not count: zero-padded ids are names, and their text order is kept.
    """
    return f"bool_and(regexp_full_match({src.sql}, '0|-?[1-9][0-9]{{0,36}}'))"


def problem(role: str, src: Source, value: str, when_null: str, bound: str = "") -> str:
    """SQL for the message about one value (after the column name), NULL when it is fine.

    `value` is the parsed value's column, `when_null` the SQL message for a null (or NULL when
    a null is allowed), `bound` is `nonneg` or `unit` for numbers.
    """
    x = src.sql
    v = f"'value ' || {show(src)} || "
    whens = [f"WHEN {x} IS NULL THEN {when_null}"]
    if src.nested:
        whens.append(f"WHEN {src.nested} THEN 'value is a JSON object or list; a cell holds one value'")
    if role == NUMBER:
        whens += [
            f"WHEN {value} IS NULL THEN {v}' is not a number'",
            f"WHEN NOT isfinite({value}) THEN {v}' is not a finite number'",
        ]
        if bound == "nonneg":
            whens.append(f"WHEN {value} < 0 THEN {v}' is below 0'")
        elif bound == "unit":
            whens.append(f"WHEN {value} < 0 OR {value} > 1 THEN {v}' is not in [0, 1]'")
    elif role == INTEGER:
        whens += [
            f"WHEN {value} IS NULL AND {_integral(src)} THEN {v}' is outside the 64-bit integer range'",
            f"WHEN {value} IS NULL THEN {v}' is not an integer'",
        ]
    elif role == FLAG:
        whens.append(f"WHEN {value} IS NULL THEN {v}' is not 0, 1, true or false'")
    elif role == NAME:
        whens += [
            f"WHEN {value} IS NULL THEN {v}' is not a finite number'",
            f"WHEN {value} = '' THEN 'value \"\" is empty'",
        ]
    elif role == DOMAIN:
        whens.append(f"WHEN {value} IS NULL OR {value} NOT IN ('id', 'ood') THEN {v}' is not id or ood'")
    elif role == ID:
        whens += [
            f"WHEN {value} IS NULL THEN {v}' is not a string or an integer'",
            f"WHEN {value} = '' THEN 'value \"\" is empty'",
        ]
    return "CASE " + " ".join(whens) + " END"


def typed_sql(plan: Plan, experiment: dict[str, str], cluster_key: str, row_number: str) -> str:
    """SQL creating TYPED from RAW in one pass: the typed values and the row's first problem.

    `experiment` holds SQL literals for the defaults of method, seed, split and domain;
    `cluster_key` is the SQL of the numeric cluster order (NULL for text order); `row_number`
    the SQL of RAW's 1-based row number. `problem` is the leftmost column's `column <name>:
    <what>` (NULL for a good row) and `problem_at` that column's index in file order; one
    message column instead of one per column keeps a 5 M-row TYPED small.
    """
    val = {s.name: f"v{i}" for i, s in enumerate(plan.order)}
    abstained = val.get("abstained", "false")
    parsed, problems = [], []
    for s in plan.order:
        role, when_null, bound = _RULES.get(s.name, (NUMBER, "", ""))
        if s in plan.attributes:  # text, numbers as text; null allowed
            role, when_null = NAME, "NULL"
        if s in plan.csfs.values():  # a score: null only where abstained
            when_null = (
                f"CASE WHEN {abstained} = false THEN 'value is null but the sample is not abstained' END"
            )
        if s.name in ("label", "prediction") and plan.loss_source == "label_prediction":
            when_null = _NULL
        parsed.append(f"{parse(role, s)} AS {val[s.name]}")
        tail = problem(role, s, val[s.name], when_null, bound)
        problems.append(f"{literal('column ' + s.name + ': ')} || ({tail})")
    loss = {
        "loss": val.get("loss", ""),
        "correct": f"CASE WHEN {val.get('correct')} THEN 0.0 ELSE 1.0 END",
        "label_prediction": f"CASE WHEN {val.get('label')} = {val.get('prediction')} THEN 0.0 ELSE 1.0 END",
    }
    values = [
        *(f"{val.get(k, experiment[k])} AS {k}" for k in ("method", "seed", "split", "domain")),
        f"{val['sample_id']} AS sample_id",
        f"{val.get('cluster', val['sample_id'])} AS cluster",
        f"{cluster_key} AS cluster_key",
        f"{abstained} AS abstained",
        f"CAST({loss[plan.loss_source]} AS DOUBLE) AS loss",
        f"{val.get('label', 'CAST(NULL AS VARCHAR)')} AS label",
        f"{val.get('prediction', 'CAST(NULL AS VARCHAR)')} AS prediction",
        f"{val.get('prob', 'CAST(NULL AS DOUBLE)')} AS prob",
        *(
            f"CASE WHEN {abstained} THEN NULL ELSE {val[s.name]} END AS s{j}"
            for j, s in enumerate(plan.csfs.values())
        ),
        *(f"{val[s.name]} AS a{j}" for j, s in enumerate(plan.attributes)),
    ]
    checks = [f"{p} AS p{i}" for i, p in enumerate(problems)]
    at = " ".join(f"WHEN p{i} IS NOT NULL THEN {i}" for i in range(len(problems)))
    ps = ", ".join(f"p{i}" for i in range(len(problems)))
    raw = [*(s.sql for s in plan.order), *(s.nested for s in plan.order if s.nested)]
    inner = ", ".join([f"{row_number} AS row_number", *raw, *parsed])
    return (
        f"CREATE TEMP TABLE {TYPED} AS SELECT * EXCLUDE ({ps}), coalesce({ps}) AS problem, "
        f"CASE {at} END AS problem_at FROM (SELECT row_number, {', '.join(values + checks)} "
        f"FROM (SELECT {inner} FROM {RAW}))"
    )
