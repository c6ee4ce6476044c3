"""OOD acceptance at a fixed ID coverage, DAR, FPR@95%TPR and AUROC (docs/risk-control.md).

Abstained samples are never accepted and count in every denominator. The threshold for an ID
coverage target c is the quantile 1 - c (numpy's linear method) of the ID samples that *have*
a confidence, i.e. the non-abstained ones. With abstentions the ID acceptance at that threshold
is then about c·K/N rather than c, and is reported as `id_coverage_actual`. Acceptance at ID
coverage is the SQL macro rc_ood_at_id_coverage (the view v_ood_at_id_coverage runs it too),
DAR at given thresholds rc_ood_acceptance (whose rates the former reads), AUROC the macro
rc_auroc; they must be installed on the connection given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb
import numpy as np

from riskcov.errors import InputError, UsageError
from riskcov.resources import sql_list
from riskcov.warehouse.duckdb_helpers import registered, temp_table

FloatArray = np.ndarray[Any, np.dtype[np.float64]]
BoolArray = np.ndarray[Any, np.dtype[np.bool_]]

DEFAULT_TARGETS = sql_list("rc_ood_default_targets")
COLUMNS = ("id_coverage_target", "threshold", "id_coverage_actual", "ood_accept_rate", "dar", "safety_ratio")


def _check(domain: str, conf: FloatArray, abstained: BoolArray, allow_empty: bool = False) -> None:
    if len(conf) != len(abstained):
        raise ValueError(f"{domain}: confidences and abstained must have one entry per sample")
    if len(conf) == 0 and not allow_empty:
        raise InputError(f"the {domain} domain has no samples; OOD metrics need both id and ood")
    bad = np.flatnonzero(~abstained & ~np.isfinite(conf))
    if bad.size:
        raise InputError(
            f"{domain} sample {int(bad[0])} is not abstained but its confidence is {float(conf[bad[0]])!r}"
        )


def _pair_table(
    con: duckdb.DuckDBPyConnection,
    id_conf: FloatArray,
    id_abstained: BoolArray,
    ood_conf: FloatArray,
    ood_abstained: BoolArray,
) -> str:
    """TEMP TABLE _rc_ood_pair(series 0, domain, abstained, confidence): the input of the
    macros; an abstention's confidence is NULL (it has none to rank)."""
    abstained = np.concatenate([id_abstained, ood_abstained]).astype(bool)
    temp_table(
        con,
        "_rc_ood_pair",
        {
            "is_id": np.concatenate([np.ones(len(id_conf), bool), np.zeros(len(ood_conf), bool)]),
            "abstained": abstained,
            "confidence": np.where(abstained, 0.0, np.concatenate([id_conf, ood_conf])).astype(np.float64),
        },
        "0 AS series, CASE WHEN is_id THEN 'id' ELSE 'ood' END AS domain, abstained, "
        "CASE WHEN abstained THEN NULL ELSE confidence END AS confidence",
    )
    return "_rc_ood_pair"


def ood_at_id_coverage(
    con: duckdb.DuckDBPyConnection,
    id_conf: FloatArray,
    id_abstained: BoolArray,
    ood_conf: FloatArray,
    ood_abstained: BoolArray,
    targets: Sequence[float] = DEFAULT_TARGETS,
) -> list[dict[str, float | None]]:
    """One row per ID coverage target, in the given order, by the macro rc_ood_at_id_coverage,
    with the risk-control column names.

    `threshold` is None (nothing accepted) when every ID sample abstained;
    safety_ratio = id_accept / (ood_accept + 1e-8).

    >>> from riskcov.resources import resource_dir
    >>> con = duckdb.connect()
    >>> for name in ("rc_ood_acceptance", "rc_ood_at_id_coverage"):
    ...     _ = con.execute((resource_dir("sql") / f"{name}.sql").read_text())
    >>> rows = ood_at_id_coverage(con, np.array([0.1, 0.2, 0.3, 0.4, 0.5]), np.zeros(5, bool),
    ...                           np.array([0.45, 0.05]), np.zeros(2, bool), [0.6])
    >>> rows[0]["threshold"], rows[0]["id_coverage_actual"], rows[0]["dar"]
    (0.26, 0.6, 0.5)
    """
    _check("id", id_conf, id_abstained)
    _check("ood", ood_conf, ood_abstained)
    for c in targets:
        if isinstance(c, bool) or not 0.0 <= c <= 1.0:
            raise UsageError(f"ID coverage target {c!r} must lie in [0, 1]")
    table = _pair_table(con, id_conf, id_abstained, ood_conf, ood_abstained)
    try:
        rows = con.execute(
            f"SELECT {', '.join(COLUMNS)} FROM rc_ood_at_id_coverage('{table}', ?::DOUBLE[]) "
            "ORDER BY position",
            [[float(c) for c in targets]],
        ).fetchall()
    finally:
        con.execute(f"DROP TABLE IF EXISTS {table}")
    return [dict(zip(COLUMNS, r, strict=True)) for r in rows]


def dar_at_thresholds(
    con: duckdb.DuckDBPyConnection,
    id_conf: FloatArray,
    id_abstained: BoolArray,
    ood_conf: FloatArray,
    ood_abstained: BoolArray,
    thresholds: Sequence[float],
) -> list[dict[str, float]]:
    """ID and OOD acceptance at given thresholds (dar = OOD acceptance), in the given order, by
    the SQL macro rc_ood_acceptance (installed on `con`).

    >>> from riskcov.resources import resource_dir
    >>> con = duckdb.connect()
    >>> _ = con.execute((resource_dir("sql") / "rc_ood_acceptance.sql").read_text())
    >>> dar_at_thresholds(con, np.array([0.2, 0.8]), np.zeros(2, bool), np.array([0.6, 0.1]),
    ...                   np.zeros(2, bool), [0.5])
    [{'threshold': 0.5, 'id_accept_rate': 0.5, 'ood_accept_rate': 0.5, 'dar': 0.5}]
    """
    _check("id", id_conf, id_abstained)
    _check("ood", ood_conf, ood_abstained)
    for t in thresholds:
        if isinstance(t, bool) or not np.isfinite(t):
            raise UsageError(f"DAR threshold {t!r} must be a finite number")
    table = _pair_table(con, id_conf, id_abstained, ood_conf, ood_abstained)
    temp_table(
        con,
        "_rc_ood_thresholds",
        {
            "position": np.arange(1, len(thresholds) + 1, dtype=np.int64),
            "threshold": np.array(thresholds, dtype=np.float64),
        },
        "0 AS series, position, threshold",
    )
    try:
        rows = con.execute(
            "SELECT id_accept_rate, ood_accept_rate "
            f"FROM rc_ood_acceptance('{table}', '_rc_ood_thresholds') ORDER BY position"
        ).fetchall()
    finally:
        con.execute(f"DROP TABLE IF EXISTS {table}")
        con.execute("DROP TABLE IF EXISTS _rc_ood_thresholds")
    return [
        {"threshold": t, "id_accept_rate": i, "ood_accept_rate": o, "dar": o}
        for t, (i, o) in zip(thresholds, rows, strict=True)
    ]


def fpr_at_95_tpr(
    con: duckdb.DuckDBPyConnection,
    id_conf: FloatArray,
    id_abstained: BoolArray,
    ood_conf: FloatArray,
    ood_abstained: BoolArray,
) -> float:
    """OOD acceptance at the ID coverage target 0.95 (ID is the positive class).

    Like every target, tau is the quantile at 1 - c computed in doubles (0.05000000000000004).

    >>> from riskcov.resources import resource_dir
    >>> con = duckdb.connect()
    >>> for name in ("rc_ood_acceptance", "rc_ood_at_id_coverage"):
    ...     _ = con.execute((resource_dir("sql") / f"{name}.sql").read_text())
    >>> fpr_at_95_tpr(con, np.arange(21.0), np.zeros(21, bool), np.array([0.5, 3.0]), np.zeros(2, bool))
    0.5
    """
    row = ood_at_id_coverage(con, id_conf, id_abstained, ood_conf, ood_abstained, [0.95])[0]
    return float(row["ood_accept_rate"] or 0.0)


def auroc(
    con: duckdb.DuckDBPyConnection,
    id_conf: FloatArray,
    id_abstained: BoolArray,
    ood_conf: FloatArray,
    ood_abstained: BoolArray,
) -> float | None:
    """AUROC of ID (positive) vs OOD by the SQL macro rc_auroc (ties ½, abstained lowest).

    The macro must be installed on `con` (sql/rc_auroc.sql). None when a class is empty.
    """
    _check("id", id_conf, id_abstained, allow_empty=True)
    _check("ood", ood_conf, ood_abstained, allow_empty=True)
    columns = {
        "score": np.concatenate([id_conf, ood_conf]).astype(np.float64),
        "abstained": np.concatenate([id_abstained, ood_abstained]).astype(bool),
        "positive": np.concatenate([np.ones(len(id_conf), bool), np.zeros(len(ood_conf), bool)]),
    }
    with registered(con, "_rc_ood_raw", columns):
        try:
            # an abstention has no score: NULL, which the macro ranks below every score
            con.execute(
                "CREATE OR REPLACE TEMP VIEW _rc_ood_scores AS "
                "SELECT 0 AS series, CASE WHEN abstained THEN NULL ELSE score END AS score, "
                "positive FROM _rc_ood_raw"
            )
            rows = con.execute("SELECT auroc FROM rc_auroc('_rc_ood_scores')").fetchall()
        finally:
            con.execute("DROP VIEW IF EXISTS _rc_ood_scores")
    return None if not rows or rows[0][0] is None else float(rows[0][0])
