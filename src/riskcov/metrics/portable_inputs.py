"""A user's own per-sample table as the input relations of the portable queries (`riskcov sql`).

Each input relation of metrics/portable.py becomes a SELECT over the user's table: columns
named by SQL expressions (DuckDB's syntax; sqlglot renders them with the rest), abstentions
turned into NULL confidence and loss, grids as literal rows. Without a table of bootstrap
weights the point estimate is computed: replicate 0, every cluster once (docs/spark.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import sqlglot
from sqlglot.errors import ParseError

from riskcov.errors import UsageError
from riskcov.metrics.budgets import refuse_outside
from riskcov.metrics.grids import DEFAULT_ALPHAS, DEFAULT_COSTS, DEFAULT_GRID, refuse_costs, refuse_coverages


@dataclass
class Columns:
    """Where each field of the per-sample format (docs/formats.md) is in the user's table."""

    table: str
    series: str = "'all'"
    cluster: str = "sample_id"
    confidence: str = "confidence"
    loss: str = "loss"
    abstained: str | None = None
    label: str | None = None
    loss_scale: float = 1.0
    positive: str = "domain = 'id'"
    ood: str = "domain = 'ood'"
    samples: str | None = None
    coverages: list[float] = field(default_factory=lambda: list(DEFAULT_GRID))
    alphas: list[float] = field(default_factory=lambda: list(DEFAULT_ALPHAS))
    costs: list[float] = field(default_factory=lambda: list(DEFAULT_COSTS))
    area_coverage: float = 0.5
    targets: list[float] = field(default_factory=lambda: [0.6, 0.7, 0.8, 0.9])


def _expr(option: str, text: str) -> str:
    """`text` as one SQL expression, or a UsageError naming the option."""
    try:
        tree = sqlglot.parse_one(text, read="duckdb")
    except ParseError as exc:
        first = str(exc).splitlines()[0]
        raise UsageError(f"{option} {text!r} is not an SQL expression: {first}") from None
    if isinstance(tree, sqlglot.exp.Query):
        raise UsageError(f"{option} {text!r}: an expression, not a query")
    return tree.sql(dialect="duckdb")


def _rows(column: str, values: list[float]) -> str:
    return " UNION ALL ".join(f"SELECT CAST({float(v)!r} AS DOUBLE) AS {column}" for v in values)


def relations(cols: Columns) -> dict[str, str]:
    """Every input relation of the portable queries as a SELECT over `cols.table`."""
    table = sqlglot.exp.to_table(cols.table, dialect="duckdb").sql(dialect="duckdb")
    series = _expr("--series", cols.series)
    cluster = _expr("--cluster", cols.cluster)
    confidence = f"CAST({_expr('--confidence', cols.confidence)} AS DOUBLE)"
    loss = f"CAST({_expr('--loss', cols.loss)} AS DOUBLE)"
    if cols.abstained is not None:
        abstained = _expr("--abstained", cols.abstained)
        confidence = f"CASE WHEN {abstained} THEN NULL ELSE {confidence} END"
        loss = f"CASE WHEN {abstained} THEN NULL ELSE {loss} END"
    if not (math.isfinite(cols.loss_scale) and cols.loss_scale > 0):
        raise UsageError(f"--loss-scale {cols.loss_scale!r} is not a finite number > 0")
    # the ranges evaluate takes (an inf would be printed as a column named inf)
    refuse_coverages(cols.coverages)
    refuse_costs(cols.costs)
    for a in cols.alphas:  # losses divided by --loss-scale: a selective risk in [0, 1]
        refuse_outside("--alpha-grid", a, note=", the selective risk's range after --loss-scale")
    samples = (
        f"SELECT replicate, cluster, multiplicity FROM "
        f"{sqlglot.exp.to_table(cols.samples, dialect='duckdb').sql(dialect='duckdb')}"
        if cols.samples
        else f"SELECT DISTINCT 0 AS replicate, {cluster} AS cluster, 1 AS multiplicity FROM {table}"
    )
    scored = (
        f"SELECT {series} AS series, {cluster} AS cluster, {confidence} AS confidence, "
        f"{loss} AS loss, CAST({float(cols.loss_scale)!r} AS DOUBLE) AS loss_scale"
    )
    label = (
        {}
        if cols.label is None
        else {"labelled": f"{scored}, {_expr('--label', cols.label)} AS label FROM {table}"}
    )
    return {
        "scored": f"{scored} FROM {table}",
        **label,
        "samples": samples,
        "truncation": _rows("c", [cols.area_coverage]),
        "coverages": _rows("c", cols.coverages),
        "alphas": _rows("alpha", cols.alphas),
        "costs": _rows("cost", cols.costs),
        "targets": _rows("c", cols.targets),
        "scores": f"SELECT {series} AS series, {confidence} AS score, "
        f"{_expr('--positive', cols.positive)} AS positive FROM {table}",
        "domain_scores": f"SELECT {series} AS series, {confidence} AS confidence, "
        f"{_expr('--ood', cols.ood)} AS ood FROM {table}",
    }
