"""An evaluation's scored relation: TEMP TABLE eval_scored, built by sql/rc_scored.sql from
the confidences of each (input, CSF) series, exactly as the warehouse view v_scored is."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import numpy as np

from riskcov.ingest.inputs import Input
from riskcov.scoring.confidences import item_confidences_sql, sample_confidences_sql
from riskcov.scoring.csf import Csf
from riskcov.scoring.sample_expressions import expression_confidences_sql, is_column
from riskcov.warehouse.duckdb_helpers import one, temp_table


@dataclass(frozen=True)
class Series:
    """One curve: an input scored by a CSF. `computed` is the series whose rows are
    evaluated for it: itself, or an earlier one with the same SQL (llm = total_evidence)."""

    index: int
    input_no: int
    csf: Csf
    computed: int


def build_scored(
    con: duckdb.DuckDBPyConnection,
    inputs: list[Input],
    csfs: list[Csf],
    participants: list[int],
    loss: str,
    estimator: str,
) -> tuple[list[Series], dict[tuple[int, str], str]]:
    """Create TEMP TABLE eval_scored; return its series and the problems found per (input, csf)."""
    temp_table(con, "eval_participants", {"participant_id": np.asarray(participants, dtype=np.int64)})
    series: list[Series] = []
    selects = []
    first: dict[tuple[int, str], int] = {}
    for input_no, inp in enumerate(inputs):
        for csf in csfs:
            index = len(series)
            computed = first.setdefault((input_no, csf.expression), index)
            s = Series(index, input_no, csf, computed)
            series.append(s)
            if computed != index:
                continue
            labels = f"{s.index} AS series, {input_no} AS population, '{loss}' AS loss,"
            where = (
                f"experiment_id = {inp.experiment_id} AND participant_id IN "
                "(SELECT participant_id FROM eval_participants)"
            )
            if not inp.per_sample:
                selects.append(item_confidences_sql(csf, labels=labels, where=f"i.{where}"))
            elif is_column(csf):
                selects.append(sample_confidences_sql(csf.name, labels=labels, where=where))
            else:  # computed from the score columns (a calibrator)
                selects.append(expression_confidences_sql(csf, labels=labels, where=f"u.{where}"))
    con.execute(
        "CREATE OR REPLACE TEMP TABLE eval_confidences AS "
        + " UNION ALL ".join(
            f"SELECT series, population, loss, experiment_id, participant_id, item_index, confidence,"
            f" abstained, loss_raw, problem FROM ({sql})"
            for sql in selects
        )
    )
    con.execute("CREATE OR REPLACE TEMP TABLE eval_scored AS FROM rc_scored('eval_confidences')")
    problems = _problems(con, inputs, series)
    if estimator != "plateau-trapezoid":
        # one working point per item: ties broken by participant_id, then item_index
        con.execute("""
            CREATE OR REPLACE TEMP TABLE eval_scored AS
            SELECT * REPLACE (CASE WHEN confidence IS NULL THEN NULL ELSE
                -CAST(row_number() OVER (PARTITION BY series, confidence IS NULL
                      ORDER BY confidence DESC, participant_id, item_index) AS DOUBLE) END
                AS confidence), confidence AS raw_confidence
            FROM eval_scored""")
    return series, problems


def _problems(
    con: duckdb.DuckDBPyConnection,
    inputs: list[Input],
    series: list[Series],
) -> dict[tuple[int, str], str]:
    """The first unusable unit of each (input, csf), in (participant, item) order."""
    problems: dict[tuple[int, str], str] = {}
    rows = con.execute(
        "SELECT series, arg_min(participant_id, (participant_id, item_index)),"
        " arg_min(item_index, (participant_id, item_index)),"
        " arg_min(problem, (participant_id, item_index)), count(*)"
        " FROM eval_confidences WHERE problem IS NOT NULL GROUP BY series ORDER BY series"
    ).fetchall()
    for sid, pid, item, problem, n in rows:
        for s in series:
            if s.computed == sid:
                inp = inputs[s.input_no]
                unit, kind = _unit_name(con, inp, pid, item)
                problems[(s.input_no, s.csf.name)] = f"{unit}: {problem} ({n} predicted {kind}(s) affected)"
    return problems


def _unit_name(con: duckdb.DuckDBPyConnection, inp: Input, pid: int, item: int) -> tuple[str, str]:
    """How messages name a unit: participant and item, or sample id."""
    if inp.per_sample:
        row = one(
            con.execute(
                "SELECT sample_id FROM samples WHERE experiment_id = ? AND sample_index = ?",
                [inp.experiment_id, item],
            )
        )
        return f"sample {row[0] if row else item}", "sample"
    row = one(
        con.execute(
            "SELECT item_names[? + 1] FROM experiments WHERE experiment_id = ?", [item, inp.experiment_id]
        )
    )
    return f"participant {pid}, item {row[0] if row else item}", "item"
