"""What an HTML report shows, read from an artifact file or from a stored evaluation's rows."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from riskcov.errors import InputError
from riskcov.report import group_tables
from riskcov.report.curves import Line, input_names, line_keys, lines_from_artifact
from riskcov.report.keys import SCALARS
from riskcov.report.store import metric_rows

# (input, csf, metric, value, ci_low, ci_high), as in evaluation_metrics
Row = tuple[str, str, str, float | None, float | None, float | None]
_RANK = {k.key: n for n, k in enumerate(SCALARS)}


@dataclass
class ReportData:
    """The report's content; `population` is None when the source does not record it."""

    source: str
    created_at: str
    inputs: list[dict[str, Any]]
    settings: dict[str, Any]
    population: dict[str, Any] | None
    rows: list[Row]
    lines: list[Line]
    skipped: dict[str, str] = field(default_factory=dict)
    group_column: str | None = None  # evaluate --group (docs/metrics-extended.md)
    groups: list[group_tables.GroupRow] = field(default_factory=list)


def sort_rows(rows: list[Row]) -> list[Row]:
    """CSFs by name, then the headline metrics in the artifact's order, then the rest by name.

    >>> [r[2] for r in sort_rows([("input_0", "a", "eaurc", 1, None, None),
    ...                           ("input_0", "a", "aurc_full", 2, None, None)])]
    ['aurc_full', 'eaurc']
    """
    return sorted(rows, key=lambda r: (r[1], _RANK.get(r[2], len(_RANK)), r[2], r[0]))


def load_artifact(path: Path) -> dict[str, Any]:
    """A metrics artifact (docs/formats.md, schema_version "1") read from `path`."""
    try:
        art = json.loads(path.read_text())
    except OSError as exc:
        raise InputError(f"{path}: cannot read the artifact: {exc.strerror}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a riskcov artifact (invalid JSON: {exc})") from None
    if not isinstance(art, dict) or art.get("schema_version") != "1":
        raise InputError(f'{path}: not a riskcov artifact (no schema_version "1")')
    missing = [k for k in ("inputs", "population", "confidence_variants", "comparison") if k not in art]
    if missing:
        raise InputError(f"{path}: not a riskcov artifact (missing {', '.join(missing)})")
    return art


def _settings(options: dict[str, Any], loss: str, estimator: str) -> dict[str, Any]:
    keep = ("confidence", "area_coverage", "bootstrap_resamples", "seed", "riskcov_version")
    return {"loss": loss, "estimator": estimator, **{k: options[k] for k in keep if k in options}}


def from_artifact(art: dict[str, Any], source: str) -> ReportData:
    """The report of one artifact."""
    return ReportData(
        source=source,
        created_at=str(art.get("created_at", "")),
        inputs=list(art["inputs"]),
        settings=_settings(art.get("options", {}), art["loss"]["name"], str(art.get("estimator", ""))),
        population=dict(art["population"]),
        rows=sort_rows(metric_rows(art)),
        lines=[
            line
            for _, line in sorted(
                zip(line_keys(art), lines_from_artifact(art), strict=True), key=lambda p: p[0]
            )
        ],
        skipped=dict(art.get("skipped_variants", {})),
        group_column=art["groups"]["column"] if art.get("groups") else None,
        groups=group_tables.rows(art["groups"]) if art.get("groups") else [],
    )


def from_evaluation(con: duckdb.DuckDBPyConnection, evaluation_id: int) -> ReportData:
    """The report of a stored evaluation, from its rows in the warehouse alone."""
    head = con.execute(
        "SELECT strftime(created_at, '%Y-%m-%dT%H:%M:%S.%fZ'), inputs, options FROM evaluations "
        "WHERE evaluation_id = ?",
        [evaluation_id],
    ).fetchall()
    if not head:
        raise InputError(f"no evaluation {evaluation_id} in the warehouse (see the evaluations table)")
    created_at, inputs_json, options_json = head[0]
    inputs, options = json.loads(inputs_json), json.loads(options_json)
    rows: list[Row] = [
        (r[0], r[1], r[2], r[3], r[4], r[5])
        for r in con.execute(
            "SELECT input, csf, metric, value, ci_low, ci_high FROM evaluation_metrics "
            "WHERE evaluation_id = ? ORDER BY csf, input, metric",
            [evaluation_id],
        ).fetchall()
    ]
    cmax = {(r[0], r[1]): r[3] for r in rows if r[2] == "cmax" and r[0] != "delta"}
    points: dict[tuple[str, str], dict[str, list[float]]] = {
        key: {"coverage": [], "selective_risk": [], "generalized_risk": []} for key in cmax
    }
    for label, csf, c, sr, gr in con.execute(
        "SELECT input, csf, coverage, selective_risk, generalized_risk FROM evaluation_curves "
        "WHERE evaluation_id = ? ORDER BY csf, input, point",
        [evaluation_id],
    ).fetchall():
        for k, v in zip(("coverage", "selective_risk", "generalized_risk"), (c, sr, gr), strict=True):
            points[(label, csf)][k].append(v)
    names = input_names(inputs)
    found = con.execute(
        "SELECT group_column, csf, group_value, metric, value, ci_low, ci_high FROM evaluation_group_metrics "
        "WHERE evaluation_id = ? ORDER BY csf, group_value NULLS LAST, metric_base = 'n' DESC, "
        "metric_base, at_value NULLS FIRST, metric",
        [evaluation_id],
    ).fetchall()
    lines = [
        Line(
            csf if len(inputs) == 1 else f"{csf} · {names[int(label.removeprefix('input_'))]}",
            curve["coverage"],
            curve["selective_risk"],
            curve["generalized_risk"],
            float(cmax[(label, csf)] or 0.0),
        )
        for (label, csf), curve in points.items()
    ]
    return ReportData(
        source=f"evaluation {evaluation_id}",
        created_at=created_at,
        inputs=inputs,
        settings=_settings(options, str(options.get("loss", "")), str(options.get("estimator", ""))),
        population=None,
        rows=sort_rows(rows),
        lines=lines,  # in (csf, input) order, as from_artifact
        group_column=str(found[0][0]) if found else None,
        groups=[(r[1], r[2], r[3], r[4], r[5], r[6]) for r in found],
    )
