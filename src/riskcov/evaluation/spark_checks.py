"""The per-sample format's checks (docs/formats.md) on a table Spark reads where it lies
(evaluation/spark_input.py): the header by formats.per_sample's own `plan_columns`, here the
column types, the experiments and the values, each problem one line naming the input, the
sample and the column. Spark has no row order, so a bad value is named by the lowest sample
id that has it, not by its row.

The input's fingerprint is computed in the same scan as the experiments: the row count and
the sum of every row's xxhash64 over all its columns (mod 2^64), which does not depend on
file layout or row order and changes with any value.
"""

from __future__ import annotations

from typing import Any

from riskcov.errors import InputError
from riskcov.formats.per_sample.header import Plan

MAX_DOUBLE = "1.7976931348623157E308"
_INTEGER = ("byte", "short", "integer", "long")
_NUMBER = (*_INTEGER, "float", "double", "decimal")
# column -> the Spark types it may have, and how a message names them
_TYPES: dict[str, tuple[tuple[str, ...], str]] = {
    "sample_id": ((*_INTEGER, "string"), "an integer or a string"),
    "cluster": ((*_INTEGER, "string"), "an integer or a string"),
    "label": ((*_INTEGER, "string", "boolean"), "an integer, string or boolean class"),
    "prediction": ((*_INTEGER, "string", "boolean"), "an integer, string or boolean class"),
    "method": (("string",), "a string"),
    "split": (("string",), "a string"),
    "domain": (("string",), "a string (id or ood)"),
    "seed": (_INTEGER, "an integer"),
    "abstained": ((*_INTEGER, "boolean"), "a boolean or 0/1"),
    "correct": ((*_INTEGER, "boolean"), "a boolean or 0/1"),
    "loss": (_NUMBER, "a number"),
    "prob": (_NUMBER, "a number"),
}

# an attribute (a column riskcov does not read itself, kept as text for --group)
_ATTRIBUTE = ((*_NUMBER, "string", "boolean"), "a number, string or boolean")


def literal(value: Any) -> str:
    """A Spark SQL literal of a str or int."""
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return str(int(value))


def types(spec: str, schema: Any, plan: Plan) -> None:
    """Every column of a type its role accepts (score columns: numbers; attributes, the
    columns riskcov does not read itself: numbers, strings or booleans, as text)."""
    attributes = {s.name for s in plan.attributes}
    for field in schema.fields:
        kind = field.dataType.typeName()
        other = _ATTRIBUTE if field.name in attributes else (_NUMBER, "a number")
        allowed, wanted = _TYPES.get(field.name, other)
        if kind not in allowed:
            raise InputError(f"{spec}: column {field.name}: type {kind} is not {wanted}")


def rows_sql(columns: list[str], plan: Plan, stem: str, group: str | None = None) -> str:
    """SELECT over riskcov_input: every sample with its experiment (defaults for missing
    columns: method the input's stem, seed 0, split test, domain id), cluster (default
    sample_id), abstained, loss, the score columns, the raw columns the checks read, and
    row_hash (xxhash64 of every column); with `group` (group_text's SQL), `grp`."""
    has = set(columns)

    def col(name: str, default: str) -> str:
        return f"`{name}`" if name in has else default

    if plan.loss_source == "loss":
        loss = "CAST(`loss` AS DOUBLE)"
    elif plan.loss_source == "correct":
        c = "CAST(`correct` AS DOUBLE)"
        loss = f"CASE WHEN {c} = 1.0 THEN 0.0 WHEN {c} = 0.0 THEN 1.0 END"
    else:
        loss = "CASE WHEN `label` = `prediction` THEN 0.0 ELSE 1.0 END"
    raw = [f"`{c}` AS `raw_{c}`" for c in ("abstained", "correct", "label", "prediction") if c in has]
    raw += ["`prob`"] if "prob" in has else []  # a calibrator's feature (spark_calibrated)
    scores = [f"`{s.name}`" for s in plan.csfs.values()]
    if group is not None:
        scores.append(f"{group} AS grp")
    return (
        f"SELECT {col('method', literal(stem))} AS method, {col('seed', '0')} AS seed, "
        f"{col('split', literal('test'))} AS split, {col('domain', literal('id'))} AS domain, "
        f"`sample_id` AS sample_id, {col('cluster', '`sample_id`')} AS cluster, "
        f"coalesce(CAST({col('abstained', 'false')} AS BOOLEAN), false) AS abstained, {loss} AS loss, "
        + ", ".join([*raw, *scores])
        + f", xxhash64({', '.join(f'`{c}`' for c in columns)}) AS row_hash FROM riskcov_input"
    )


def group_text(schema: Any, column: str) -> str:
    """SQL of `column`'s value as text, as the ingest stores a group column (label, prediction
    or an attribute): CAST to a string, a float only where it is finite; NULL when the input
    has no such column."""
    field = next((f for f in schema.fields if f.name == column), None)
    if field is None:
        return "CAST(NULL AS STRING)"
    c = f"`{column}`"
    if field.dataType.typeName() in ("float", "double"):
        return f"CASE WHEN NOT isnan({c}) AND abs({c}) <= {MAX_DOUBLE} THEN CAST({c} AS STRING) END"
    return f"CAST({c} AS STRING)"


def experiments(spark: Any, spec: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The input's experiments (method, seed, split, domain, n) and its fingerprint, in one scan
    of riskcov_rows; a null or unknown experiment field is an InputError."""
    rows = spark.sql(
        "SELECT method, seed, split, domain, count(*) AS n, "
        "sum(CAST(row_hash AS DECIMAL(38, 0))) AS h FROM riskcov_rows "
        "GROUP BY method, seed, split, domain ORDER BY method, seed, split, domain"
    ).collect()
    if not rows:
        raise InputError(f"{spec}: no rows")
    out = []
    for r in rows:
        for name in ("method", "seed", "split", "domain"):
            if r[name] is None:
                raise InputError(f"{spec}: column {name}: value is null ({r['n']} sample(s))")
        if r["domain"] not in ("id", "ood"):
            raise InputError(f'{spec}: column domain: "{r["domain"]}" is not id or ood')
        if r["method"] == "" or r["split"] == "":
            raise InputError(f"{spec}: column {'method' if r['method'] == '' else 'split'}: value is empty")
        out.append(
            {"method": r["method"], "seed": int(r["seed"]), "split": r["split"], "domain": r["domain"]}
        )
    fingerprint = {
        "rows": sum(int(r["n"]) for r in rows),
        "xxhash64_sum": f"{sum(int(r['h']) for r in rows) % 2**64:016x}",
    }
    return out, fingerprint


def _checks(plan: Plan, has: set[str]) -> list[tuple[str, str, str]]:
    """(column, SQL condition of a bad value over riskcov_chosen, why) in the order reported."""
    finite = f"abs({{}}) <= {MAX_DOUBLE}"
    out = [("sample_id", "sample_id IS NULL", "value is null")]
    if "cluster" in has:
        out.append(("cluster", "cluster IS NULL", "value is null"))
    for flag in ("abstained", "correct"):
        if flag in has:
            out.append((flag, f"raw_{flag} IS NULL", "value is null"))
            out.append((flag, f"CAST(raw_{flag} AS INT) NOT IN (0, 1)", "not true/false or 0/1"))
    for name in ("label", "prediction"):
        if plan.loss_source == "label_prediction" and name in has:
            out.append((name, f"raw_{name} IS NULL", "value is null"))
    if plan.loss_source == "loss":
        out.append(("loss", "loss IS NULL", "value is null"))
        out.append(("loss", f"NOT (loss >= 0 AND {finite.format('loss')})", "not a finite number >= 0"))
    if "prob" in has:  # NULL is allowed (no probability); NaN fails both comparisons' conjunction
        out.append(("prob", "prob IS NOT NULL AND NOT (prob >= 0 AND prob <= 1)", "not a number in [0, 1]"))
    for s in plan.csfs.values():
        c = f"`{s.name}`"
        out.append(
            (s.name, f"NOT abstained AND {c} IS NULL", "value is null where the sample is not abstained")
        )
        out.append((s.name, f"NOT abstained AND NOT ({finite.format(c)})", "not a finite number"))
    return out


def count(spark: Any, where: str, view: str = "riskcov_chosen") -> int:
    """The rows of `view` (the chosen experiment's samples) where `where` holds."""
    return int(spark.sql(f"SELECT count(*) FROM {view} WHERE {where}").collect()[0][0])


def validate(spark: Any, spec: str, plan: Plan) -> None:
    """The chosen experiment's values (riskcov_chosen), in one scan: the first failing check
    with its lowest sample id and count, then duplicate sample ids."""
    has = {f.name for f in spark.table("riskcov_input").schema.fields}
    checks = _checks(plan, has)
    parts = []
    for i, (_, bad, _why) in enumerate(checks):
        parts.append(f"sum(CASE WHEN {bad} THEN 1 ELSE 0 END) AS n{i}")
        parts.append(f"min(CASE WHEN {bad} THEN CAST(sample_id AS STRING) END) AS s{i}")
    row = spark.sql(
        f"SELECT {', '.join(parts)}, count(*) - count(DISTINCT sample_id) AS dup FROM riskcov_chosen"
    ).collect()[0]
    for i, (column, _bad, why) in enumerate(checks):
        n = row[f"n{i}"] or 0
        if n:
            sample = "" if row[f"s{i}"] is None else f"sample {row[f's{i}']}: "
            raise InputError(f"{spec}: {sample}column {column}: {why} ({n} sample(s))")
    if row["dup"]:
        first = spark.sql(
            "SELECT CAST(sample_id AS STRING) FROM riskcov_chosen GROUP BY sample_id HAVING count(*) > 1 "
            "ORDER BY 1 LIMIT 1"
        ).collect()[0][0]
        raise InputError(f"{spec}: sample_id {first} appears more than once in its experiment")
