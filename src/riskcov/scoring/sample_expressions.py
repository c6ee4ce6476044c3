"""Confidences of per-sample runs computed from their score columns (docs/python.md): the
calibrated CSFs of a calibrator fitted on a per-sample split, as one SQL expression over the
sample's scores by CSF name and its `prob`, run by the same rc_scored SQL as a plain column.

A sample's scores are one row per (sample, CSF) in `sample_scores`; `rows_sql` pivots the
columns an expression reads into one row per sample, `s` (`s."<csf>"`, `s.prob`), so a user's
CSF compiled for per-sample runs (riskcov.scoring.user_csf) reads it as it reads item_signals.
"""

from __future__ import annotations

from collections.abc import Iterable

from riskcov.scoring.csf import Csf, sample_csf

PROB = "prob"  # the sample's own probability column, usable beside the score columns


def column_sql(name: str) -> str:
    """The SQL of a feature over the pivoted row `s`: a score column by CSF name, or `prob`.

    >>> column_sql("msp"), column_sql("prob")
    ('s."msp"', 's."prob"')
    """
    return f's."{name}"'


def rows_sql(columns: Iterable[str]) -> str:
    """One row per sample of every per-sample experiment: its keys, the score `columns` by CSF
    name (NULL where the experiment lacks one) and `prob`; read as `s`."""
    pivot = "".join(
        f", max(sc.confidence) FILTER (WHERE sc.csf = '{c}') AS \"{c}\"" for c in columns if c != PROB
    )
    return (
        f"(SELECT sa.experiment_id, sa.sample_index, any_value(sa.prob) AS prob{pivot} FROM samples AS sa"
        " LEFT JOIN sample_scores AS sc USING (experiment_id, sample_index)"
        " GROUP BY sa.experiment_id, sa.sample_index)"
    )


def is_column(c: Csf) -> bool:
    """True for a per-sample score column as it is (no expression over columns)."""
    return c.expression == sample_csf(c.name).expression


def expression_csf(name: str, expression: str, columns: Iterable[str]) -> Csf:
    """A CSF computed from `columns` (in `required`); its problem names the first column a
    sample lacks, or a confidence that is not a finite number."""
    cols = tuple(dict.fromkeys(columns))
    whens = [
        f"WHEN {column_sql(c)} IS NULL THEN '{c} is null or not a score column of the run'" for c in cols
    ]
    whens.append(
        f"WHEN NOT isfinite({expression}) THEN 'the confidence is ' || CAST({expression} AS VARCHAR)"
        " || ', not a finite number'"
    )
    return Csf(name, expression, required=cols, problem=f"CASE {' '.join(whens)} END")


def expression_confidences_sql(c: Csf, *, labels: str, where: str) -> str:
    """SELECT of every sample of the experiments `where` picks, scored by expression CSF `c`,
    in the columns rc_scored reads (those of sample_confidences_sql)."""
    return (
        f"SELECT {labels} u.experiment_id, u.participant_id, u.sample_index AS item_index,"
        f" CASE WHEN u.abstained THEN NULL ELSE {c.expression} END AS confidence, u.abstained,"
        f" u.loss AS loss_raw, CASE WHEN u.abstained THEN NULL ELSE {c.problem} END AS problem"
        f" FROM v_sample_units AS u LEFT JOIN {rows_sql(c.required)} AS s USING (experiment_id, sample_index)"
        f" WHERE {where}"
    )
