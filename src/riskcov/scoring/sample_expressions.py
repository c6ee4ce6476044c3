"""Confidences of per-sample runs computed from their score columns (docs/python.md): the
calibrated CSFs of a calibrator fitted on a per-sample split, as one SQL expression over the
sample's scores by CSF name and its `prob`, run by the same rc_scored SQL as a plain column.

A sample's scores are one row per (sample, CSF) in `sample_scores`; `sample_features_sql`
pivots the columns an expression reads into one row per sample (`sc."<csf>"`, `p.prob`).
"""

from __future__ import annotations

from collections.abc import Iterable

from riskcov.scoring.csf import Csf, sample_csf

PROB = "prob"  # the sample's own probability column, usable beside the score columns


def column_sql(name: str) -> str:
    """The SQL of a feature over the pivoted row: a score column by CSF name, or `prob`.

    >>> column_sql("msp"), column_sql("prob")
    ('sc."msp"', 'p.prob')
    """
    return "p.prob" if name == PROB else f'sc."{name}"'


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
    scores = [s for s in c.required if s != PROB]
    pivot = "".join(f", max(confidence) FILTER (WHERE csf = '{s}') AS \"{s}\"" for s in scores)
    return (
        f"SELECT {labels} u.experiment_id, u.participant_id, u.sample_index AS item_index,"
        f" CASE WHEN u.abstained THEN NULL ELSE {c.expression} END AS confidence, u.abstained,"
        f" u.loss AS loss_raw, CASE WHEN u.abstained THEN NULL ELSE {c.problem} END AS problem"
        " FROM v_sample_units AS u"
        f" LEFT JOIN (SELECT experiment_id, sample_index{pivot} FROM sample_scores"
        " GROUP BY experiment_id, sample_index) AS sc USING (experiment_id, sample_index)"
        " LEFT JOIN (SELECT experiment_id, sample_index, prob FROM samples) AS p"
        " USING (experiment_id, sample_index)"
        f" WHERE {where}"
    )
