"""The CSFs of `evaluate --engine spark` on a table Spark reads where it lies
(evaluation/spark_input.py): its score columns, and with `--calibration FILE|ID` the calibrated
CSFs of docs/calibration.md. A calibrator is one SQL expression over the score columns (by CSF
name) and `prob` (scoring/calibration/to_sql.py), chosen exactly as for an ingested run
(scoring.choose.choose_samples); here sqlglot renders it for Spark over the input's own columns,
so nothing is fitted or computed outside Spark. Temperature scaling, Platt and logistic
calibrators are arithmetic, exp and ln; an isotonic one is refused (its SQL uses DuckDB's list
functions and lambdas). Also the calibration of the input's own `prob` (ECE, NLL, Brier), by the
portable twin of the macro the warehouse's view computes it with.
"""

from __future__ import annotations

from typing import Any

import sqlglot
from sqlglot import exp

from riskcov.errors import InputError, UsageError
from riskcov.evaluation.assembly import CALIBRATION_KEYS
from riskcov.evaluation.options import Options
from riskcov.formats.per_sample.header import Plan
from riskcov.metrics import dialects, portable
from riskcov.scoring import csf
from riskcov.scoring.choose import Choice, choose_samples
from riskcov.scoring.csf import Csf
from riskcov.scoring.sample_expressions import PROB, is_column


def choose(con: Any, opts: Options, plan: Plan) -> Choice:
    """The CSFs of opts.confidence among the input's score columns; with --calibration, the
    calibrator read from `con` (a file, or an id of the local warehouse) and its CSFs."""
    columns = [list(plan.csfs)]
    if opts.calibration is None:
        names, skip = csf.select_samples(opts.confidence, columns)
        return Choice(names, skip)
    from riskcov.scoring.calibration.store import resolve

    cal, _ = resolve(con, opts.calibration)
    if cal.method == "isotonic":
        raise UsageError(
            f"--calibration {opts.calibration}: an isotonic calibrator's SQL is written with DuckDB's "
            "list functions, which --engine spark does not render; ingest the input and give its run id, "
            "or use a temperature, platt or logistic calibrator"
        )
    return choose_samples(con, opts.confidence, opts.calibration, columns)


def confidence_sql(c: Csf, plan: Plan, spec: str, columns: list[str]) -> str:
    """Spark SQL of CSF `c`'s confidence over riskcov_chosen AS r: a score column, or an
    expression over them and `prob` rendered by sqlglot (an InputError when the input lacks a
    feature of it)."""
    if is_column(c):
        return f"CAST(r.`{plan.csfs[c.name].name}` AS DOUBLE)"
    tree = sqlglot.parse_one(c.expression, read="duckdb")
    for col in list(tree.find_all(exp.Column)):
        if col.table != "s":
            continue
        if col.name == PROB and PROB in columns:
            source = PROB
        elif col.name in plan.csfs:
            source = plan.csfs[col.name].name
        else:
            raise InputError(
                f"--confidence {c.name}: {spec} has no score column {col.name} (its CSFs: "
                f"{', '.join(plan.csfs)}; confidence_<name> columns are CSF <name>)"
            )
        col.replace(exp.cast(exp.column(source, table="r", quoted=True), "double"))
    return dialects.transform(tree, "spark").sql(dialect="spark")


def check(spark: Any, spec: str, chosen: list[Csf], sql: dict[str, str]) -> None:
    """A calibrated CSF needs its value for every sample that is not abstained (a NULL feature,
    e.g. `prob`, would otherwise count as an abstention): an InputError naming the lowest
    sample id without one."""
    for c in chosen:
        if is_column(c):
            continue
        row = spark.sql(
            f"SELECT min(CAST(sample_id AS STRING)), count(*) FROM riskcov_chosen AS r "
            f"WHERE NOT r.abstained AND ({sql[c.name]}) IS NULL"
        ).collect()[0]
        if row[1]:
            raise InputError(
                f"{spec}: sample {row[0]}: --confidence {c.name} has no value (a feature is null: "
                f"{', '.join(c.required)}; {row[1]} sample(s))"
            )


# the bins of an experiment's ECE, as the warehouse's view v_prob_calibration takes them
ECE_BINS = 10


def prob_calibration(spark: Any, columns: list[str]) -> dict[str, Any] | None:
    """`inputs[].calibration` of the chosen experiment (riskcov_chosen; docs/metrics.md): ECE,
    NLL and Brier of its `prob` over its predicted samples that have one, when some do and every
    predicted sample's loss is 0 or 1 (as the warehouse's v_prob_samples decides); else None."""
    if PROB not in columns:
        return None
    with_prob, other_losses = spark.sql(
        "SELECT count(prob), sum(CASE WHEN loss = 0 OR loss = 1 THEN 0 ELSE 1 END) "
        "FROM riskcov_chosen WHERE NOT abstained"
    ).collect()[0]
    if not with_prob or other_losses:
        return None
    relations = {
        "probabilities": "SELECT 0 AS series, CAST(prob AS DOUBLE) AS prob, "
        "CAST(1 - loss AS INTEGER) AS correct FROM riskcov_chosen WHERE NOT abstained AND prob IS NOT NULL",
        "bins": f"SELECT {ECE_BINS} AS n_bins",
    }
    row = spark.sql(portable.render("prob_calibration", "spark", relations)).collect()[0]
    return {key: (int if key in ("n", "n_bins") else float)(row[key]) for key in CALIBRATION_KEYS}
