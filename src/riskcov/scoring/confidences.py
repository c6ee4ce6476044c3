"""The confidence relations the formats feed to `rc_scored` (sql/rc_scored.sql).

PHQ-8 items are scored by a CSF's SQL over `item_signals`; the same SELECT builds the
warehouse view `v_csf_confidences` and an evaluation's confidences, so a CSF is computed one
way everywhere. Per-sample runs carry their scores as data (`v_sample_confidences`).
"""

from __future__ import annotations

from collections.abc import Iterable

from riskcov.scoring.csf import BASE, Csf


def item_confidences_sql(csf: Csf, *, labels: str, where: str) -> str:
    """SELECT of every item (one row each, abstentions included) scored by `csf`, with the
    columns rc_scored reads; `labels` adds leading columns, `where` filters the items.

    >>> "AS abstained" in item_confidences_sql(BASE["llm"], labels="", where="true")
    True
    """
    return (
        f"SELECT {labels} i.experiment_id, i.participant_id, i.item_index, i.pred, i.gt,"
        f" CASE WHEN i.pred IS NULL THEN NULL ELSE {csf.expression} END AS confidence,"
        " i.pred IS NULL AS abstained, CAST(abs(i.pred - i.gt) AS DOUBLE) AS loss_raw,"
        f" CASE WHEN i.pred IS NULL THEN NULL ELSE {csf.problem_sql()} END AS problem"
        " FROM items AS i"
        " LEFT JOIN item_signals AS s USING (experiment_id, participant_id, item_index)"
        f" WHERE {where}"
    )


def confidences_view_sql(user: Iterable[Csf] = ()) -> str:
    """`v_csf_confidences`: every base CSF and every stored user CSF on every item (items exist
    only for successful participants: ingest stores none for failed ones)."""
    csfs = [*BASE.values(), *user]
    parts = [item_confidences_sql(c, labels=f"'{_quote(c.name)}' AS csf,", where="true") for c in csfs]
    return "CREATE OR REPLACE VIEW v_csf_confidences AS\n" + "\nUNION ALL\n".join(parts)


def sample_confidences_sql(csf: str, *, labels: str, where: str) -> str:
    """SELECT of every sample of the experiments `where` picks, scored by its column `csf`."""
    return (
        f"SELECT {labels} experiment_id, participant_id, item_index, confidence, abstained,"
        f" loss_raw, problem FROM v_sample_confidences WHERE csf = '{_quote(csf)}' AND {where}"
    )


def _quote(text: str) -> str:
    return text.replace("'", "''")
