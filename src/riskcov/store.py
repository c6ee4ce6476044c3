"""Stored evaluations: `evaluations`, `evaluation_metrics` (long format), `evaluation_curves`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from riskcov import __version__
from riskcov.db import one
from riskcov.warehouse import resolve_path

_SCALARS = ("cmax", "aurc_full", "augrc_full", "aurc_optimal", "augrc_optimal", "eaurc",
            "eaugrc", "aurc_achievable")


def next_id(con: duckdb.DuckDBPyConnection) -> int:
    """A new evaluation id."""
    row = one(con.execute("SELECT nextval('evaluation_id_seq')"))
    assert row is not None
    return int(row[0])


def default_artifact_path(warehouse: Path | None, evaluation_id: int) -> Path:
    """artifacts/evaluation_<id>.json beside the warehouse file."""
    return resolve_path(warehouse).parent / "artifacts" / f"evaluation_{evaluation_id}.json"


def metric_rows(art: dict[str, Any]) -> list[tuple[str, str, str, Any, Any, Any]]:
    """(input, csf, metric, value, ci_low, ci_high) for every number the artifact reports."""
    rows: list[tuple[str, str, str, Any, Any, Any]] = []
    paired = art["comparison"]["enabled"]
    for csf, entry in art["confidence_variants"].items():
        per_input = entry if paired else {"input_0": entry}
        for label, m in per_input.items():
            ci = m["bootstrap"].get("ci95", {}) if m["bootstrap"] else {}

            def add(metric: str, value: Any, bounds: list[float] | None = None,
                    label: str = label, csf: str = csf) -> None:
                lo, hi = bounds if bounds else (None, None)
                rows.append((label, csf, metric, value, lo, hi))

            for k in _SCALARS:
                add(k, m[k], ci.get(k))
            for k in ("aurc_at_c", "augrc_at_c"):
                add(k, m[k]["value"], ci.get(k))
            for k, v in m["interpretation"].items():
                add(k, v)
            for key, point in m["mae_at_coverage"].items():
                add(f"mae_at_coverage_{key}", point and point["value"],
                    ci.get("mae_at_coverage", {}).get(key))
                add(f"mae_achieved_coverage_{key}", point and point["achieved"])
            for key, point in m.get("coverage_at_risk", {}).items():
                add(f"coverage_at_risk_{key}", point["coverage"],
                    ci.get("coverage_at_risk", {}).get(key))
        if paired:
            for metric, d in art["comparison"]["deltas"][csf].items():
                lo, hi = d["ci95"] if d["ci95"] else (None, None)
                rows.append(("delta", csf, metric, d["delta"], lo, hi))
    return rows


def save(con: duckdb.DuckDBPyConnection, evaluation_id: int, art: dict[str, Any],
         artifact_path: str) -> None:
    """Insert the evaluation's rows (inside the caller's transaction, if any)."""
    con.execute("INSERT INTO evaluations VALUES (?, ?::TIMESTAMP, ?, ?, ?, ?)", [
        evaluation_id, art["created_at"].rstrip("Z"), json.dumps(art["inputs"]),
        json.dumps({**art["options"], "loss": art["loss"]["name"],
                    "estimator": art["estimator"]}),
        artifact_path, __version__])
    rows = metric_rows(art)
    cols: list[tuple[Any, ...]] = list(zip(*rows, strict=True)) if rows else [()] * 6
    con.register("_m", {
        "input": np.array(cols[0], dtype=object), "csf": np.array(cols[1], dtype=object),
        "metric": np.array(cols[2], dtype=object),
        **{name: np.array([np.nan if v is None else v for v in cols[i]], dtype=np.float64)
           for i, name in ((3, "value"), (4, "ci_low"), (5, "ci_high"))}})
    con.execute("INSERT INTO evaluation_metrics SELECT ?, input, csf, metric, "
                "CASE WHEN isnan(value) THEN NULL ELSE value END, "
                "CASE WHEN isnan(ci_low) THEN NULL ELSE ci_low END, "
                "CASE WHEN isnan(ci_high) THEN NULL ELSE ci_high END FROM _m", [evaluation_id])
    con.unregister("_m")
    paired = art["comparison"]["enabled"]
    curves = []
    for csf, entry in art["confidence_variants"].items():
        for label, m in (entry if paired else {"input_0": entry}).items():
            c = m["curve"]
            curves += [(evaluation_id, label, csf, j + 1, c["coverage"][j], c["selective_risk"][j],
                        c["generalized_risk"][j], c["threshold"][j])
                       for j in range(len(c["coverage"]))]
    if curves:
        con.executemany("INSERT INTO evaluation_curves VALUES (?, ?, ?, ?, ?, ?, ?, ?)", curves)
