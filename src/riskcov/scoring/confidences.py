"""The confidence relations the formats feed to `rc_scored` (sql/rc_scored.sql).

PHQ-8 items are scored by a CSF's SQL over `item_signals`; the same expressions build the
warehouse views `v_csf_confidences` (a row per item and CSF) and `internal.v_csf_columns` (a
row per item, a column pair per CSF: the metric tables score every CSF in one join of the
items with their signals) and an evaluation's confidences, so a CSF is computed one way
everywhere.
Per-sample runs carry their scores as data (`v_sample_confidences`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from riskcov.scoring.csf import BASE, Csf, has_signal
from riskcov.warehouse.csf_columns import COLUMNS_VIEW, column_names

# an item's unit columns besides its confidence and problem, and the join every CSF reads
_ITEM_UNIT = "i.pred IS NULL AS abstained, CAST(abs(i.pred - i.gt) AS DOUBLE) AS loss_raw"
_ITEM_JOIN = "items AS i LEFT JOIN item_signals AS s USING (experiment_id, participant_id, item_index)"


def _confidence(csf: Csf) -> str:
    return f"CASE WHEN i.pred IS NULL THEN NULL ELSE {csf.expression} END"


def _problem(csf: Csf) -> str:
    return f"CASE WHEN i.pred IS NULL THEN NULL ELSE {csf.problem_sql()} END"


def item_confidences_sql(csf: Csf, *, labels: str, where: str) -> str:
    """SELECT of every item (one row each, abstentions included) scored by `csf`, with the
    columns rc_scored reads; `labels` adds leading columns, `where` filters the items.

    >>> "AS abstained" in item_confidences_sql(BASE["llm"], labels="", where="true")
    True
    """
    return (
        f"SELECT {labels} i.experiment_id, i.participant_id, i.item_index, i.pred, i.gt,"
        f" {_confidence(csf)} AS confidence, {_ITEM_UNIT}, {_problem(csf)} AS problem"
        f" FROM {_ITEM_JOIN} WHERE {where}"
    )


def confidences_view_sql(user: Iterable[Csf] = ()) -> str:
    """The two CSF views, every base CSF and every stored user CSF on every item (items exist
    only for successful participants: ingest stores none for failed ones): `v_csf_confidences`,
    a row per item and CSF, and `internal.v_csf_columns`, a row per item with each CSF's confidence and
    problem as two columns (riskcov.warehouse.csf_columns names them), all from one join."""
    csfs = [*BASE.values(), *user]
    parts = [item_confidences_sql(c, labels=f"'{_quote(c.name)}' AS csf,", where="true") for c in csfs]
    columns = []
    for c in csfs:
        confidence, problem = column_names(c.name)
        columns += [f"{_confidence(c)} AS {confidence}", f"{_problem(c)} AS {problem}"]
    selected, join = _keys_once(",\n".join(columns))
    return (
        "CREATE OR REPLACE VIEW v_csf_confidences AS\n"
        + "\nUNION ALL\n".join(parts)
        + f";\nCREATE OR REPLACE VIEW {COLUMNS_VIEW} AS SELECT i.experiment_id, i.participant_id,"
        + f" i.item_index, {_ITEM_UNIT},\n"
        + selected
        + f"\nFROM {join}"
    )


# has_signal's SQL for any one-word key
_HAS = re.compile(re.escape(has_signal("KEY")).replace("KEY", r"(\w+)"))


def _keys_once(columns: str) -> tuple[str, str]:
    """`columns` with each has_signal(key) read from a column `has:<key>` that the join's
    signal side computes once per item, and that join: the columns view names a key in many
    CSFs' problems (DuckDB searched an item's key list once for each)."""
    keys = sorted(set(_HAS.findall(columns)))
    for key in keys:
        columns = columns.replace(has_signal(key), f'coalesce(s."has:{key}", false)')
    found = "".join(f", list_contains(signal_keys, '{key}') AS \"has:{key}\"" for key in keys)
    join = _ITEM_JOIN.replace("item_signals AS s", f"(SELECT *{found} FROM item_signals) AS s")
    return columns, join


def sample_confidences_sql(csf: str, *, labels: str, where: str) -> str:
    """SELECT of every sample of the experiments `where` picks, scored by its column `csf`."""
    return (
        f"SELECT {labels} experiment_id, participant_id, item_index, confidence, abstained,"
        f" loss_raw, problem FROM v_sample_confidences WHERE csf = '{_quote(csf)}' AND {where}"
    )


def _quote(text: str) -> str:
    return text.replace("'", "''")
