"""Stored evaluations: `evaluations`, `evaluation_metrics` (long format), `evaluation_curves`."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from riskcov import __version__
from riskcov.report import group_tables
from riskcov.report.keys import EXTRA_KEYS, SCALARS, grid_key, value_of
from riskcov.warehouse.connection import resolve_path
from riskcov.warehouse.duckdb_helpers import one, registered
from riskcov.warehouse.files import stale_temps

# a key whose last part is its parameter: mae_at_coverage_0.10, coverage_at_risk_0.05, ...
_PARAMETER = re.compile(r"^(.*)_(\d+(?:\.\d+)?)$")


def next_id(con: duckdb.DuckDBPyConnection) -> int:
    """A new evaluation id."""
    row = one(con.execute("SELECT nextval('evaluation_id_seq')"))
    assert row is not None
    return int(row[0])


def default_artifact_path(warehouse: Path | None, evaluation_id: int) -> Path:
    """artifacts/<warehouse stem>_evaluation_<id>.json beside the warehouse file, so two
    warehouses in one folder keep apart; never an existing file (a warehouse made anew counts
    its ids from 1 again): then _2, _3, ... is appended.

    >>> import tempfile
    >>> wh = Path(tempfile.mkdtemp()) / "w.duckdb"
    >>> default_artifact_path(wh, 1).name
    'w_evaluation_1.json'
    """
    wh = resolve_path(warehouse)
    folder = wh.parent / "artifacts"
    path = folder / f"{wh.stem}_evaluation_{evaluation_id}.json"
    k = 2
    while path.exists():
        path = folder / f"{wh.stem}_evaluation_{evaluation_id}_{k}.json"
        k += 1
    return path


def recover_artifacts(con: duckdb.DuckDBPyConnection, warehouse: Path | None, output: Path | None) -> None:
    """Finish what a killed evaluate left: its staged artifact (`.<name>.<pid>.tmp` of a dead
    process) is renamed into place when its evaluation was stored (same path and created_at),
    else removed. Looks in the default artifact folder and beside `output`."""
    wh = resolve_path(warehouse)
    folder = wh.parent / "artifacts"
    temps = [t for t in stale_temps(folder) if t.name.startswith(f".{wh.stem}_evaluation_")]
    if output is not None and str(output) != "-":
        temps += stale_temps(output.parent, output.name)
    for tmp in temps:
        target = tmp.parent / tmp.name[1:].rsplit(".", 2)[0]
        if _was_stored(con, tmp, target):
            os.replace(tmp, target)
        else:
            tmp.unlink(missing_ok=True)


def _was_stored(con: duckdb.DuckDBPyConnection, tmp: Path, target: Path) -> bool:
    try:
        created = json.loads(tmp.read_text(encoding="utf-8"))["created_at"].rstrip("Z")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False  # not whole: the process died before it was flushed, so before COMMIT
    paths = {str(target), str(target.absolute())}
    row = one(
        con.execute(
            "SELECT count(*) FROM evaluations WHERE created_at = ?::TIMESTAMP AND artifact_path IN ?",
            [created, list(paths)],
        )
    )
    return bool(row and row[0])


def _metrics_by_input(art: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(input label, csf, METRICS) for single and paired artifacts alike."""
    paired = art["comparison"]["enabled"]
    return [
        (label, csf, m)
        for csf, entry in art["confidence_variants"].items()
        for label, m in (entry if paired else {"input_0": entry}).items()
    ]


def _insert(con: duckdb.DuckDBPyConnection, table: str, columns: dict[str, list[Any]]) -> None:
    """Insert columns through one numpy scan (None -> NULL), not row by row."""
    arrays = {
        k: (
            np.array(v, dtype=object)
            if any(isinstance(x, str) for x in v)
            else np.array([np.nan if x is None else x for x in v], dtype=np.float64)
        )
        for k, v in columns.items()
    }
    select = ", ".join(
        f'CASE WHEN isnan("{k}") THEN NULL ELSE "{k}" END AS "{k}"'
        if arrays[k].dtype == np.float64
        else f'"{k}"'
        for k in columns
    )
    with registered(con, "_rows", arrays):
        con.execute(f"INSERT INTO {table} BY NAME SELECT {select} FROM _rows")


def split_metric(metric: str, options: dict[str, Any]) -> tuple[str, float | None]:
    """A metric key as (parameter-free name, its parameter): the coverage of MAE@coverage (as
    requested in the artifact's options, not the key's two decimals), the alpha of
    coverage_at_risk, the C of AURC@C / AUGRC@C; None for a metric without one.

    >>> opts = {"coverage_grid": [0.1, 0.125], "alpha_grid": [0.005], "area_coverage": 0.5}
    >>> split_metric("mae_at_coverage_0.10", opts), split_metric("aurc_at_c", opts)
    (('mae_at_coverage', 0.1), ('aurc_at_c', 0.5))
    >>> split_metric("mae_achieved_coverage_0.12", opts), split_metric("coverage_at_risk_0.01", opts)
    (('mae_achieved_coverage', 0.125), ('coverage_at_risk', 0.005))
    >>> split_metric("aurc_full", opts)
    ('aurc_full', None)
    """
    match = _PARAMETER.match(metric)
    if match:
        base = match.group(1)
        grid = options["alpha_grid"] if base.startswith("coverage_at_risk") else options["coverage_grid"]
        exact = {grid_key(float(v)): float(v) for v in grid}
        return base, exact.get(match.group(2), float(match.group(2)))
    return metric, (float(options["area_coverage"]) if metric in ("aurc_at_c", "augrc_at_c") else None)


def _context(art: dict[str, Any], labels: list[str]) -> dict[str, list[Any]]:
    """run_id, experiment_id, mode and loss of each row's input (NULL run/experiment/mode for
    a paired delta, which has two)."""
    inputs = art["inputs"]
    out: dict[str, list[Any]] = {"run_id": [], "experiment_id": [], "mode": [], "loss": []}
    for label in labels:
        entry = inputs[int(label.split("_")[1])] if label.startswith("input_") else {}
        for key in ("run_id", "experiment_id", "mode"):
            out[key].append(entry.get(key))
        out["loss"].append(art["loss"]["name"])
    return out


def metric_rows(art: dict[str, Any]) -> list[tuple[str, str, str, Any, Any, Any]]:
    """(input, csf, metric, value, ci_low, ci_high) for every number the artifact reports."""
    rows: list[tuple[str, str, str, Any, Any, Any]] = []
    for label, csf, m in _metrics_by_input(art):
        ci = m["bootstrap"].get("ci95", {}) if m["bootstrap"] else {}

        def add(
            metric: str, value: Any, bounds: list[float] | None = None, label: str = label, csf: str = csf
        ) -> None:
            lo, hi = bounds if bounds else (None, None)
            rows.append((label, csf, metric, value, lo, hi))

        for k in SCALARS:
            add(k.key, value_of(m, k), ci.get(k.key))
        for key in EXTRA_KEYS:  # only when the evaluation computed them
            if key in m:
                add(key, m[key], ci.get(key))
        for key, best in m.get("effective_reliability", {}).items():
            add(f"effective_reliability_{key}", best["value"], ci.get("effective_reliability", {}).get(key))
            add(f"effective_reliability_threshold_{key}", best["threshold"])
        if "oracle_gap_area" in m:
            add("oracle_gap_area", m["oracle_gap_area"])
        for k, v in m["interpretation"].items():
            add(k, v)
        for key, point in m["mae_at_coverage"].items():
            add(f"mae_at_coverage_{key}", point and point["value"], ci.get("mae_at_coverage", {}).get(key))
            add(f"mae_achieved_coverage_{key}", point and point["achieved"])
        for key, point in m.get("coverage_at_risk", {}).items():
            add(f"coverage_at_risk_{key}", point["coverage"], ci.get("coverage_at_risk", {}).get(key))
    ranked = art.get("rank_stability", {})
    for name, shares in ranked.get("ranks", {}).items():
        who = ranked.get("contestants", {}).get(name, {"input": "input_0", "csf": name})
        for rank, share in enumerate(shares, start=1):
            rows.append((who["input"], who["csf"], f"rank_share_{rank}", share, None, None))
    for csf, deltas in (art["comparison"]["deltas"] or {}).items():
        for metric, d in deltas.items():
            lo, hi = d["ci95"] if d["ci95"] else (None, None)
            rows.append(("delta", csf, metric, d["delta"], lo, hi))
    return rows


def save(con: duckdb.DuckDBPyConnection, evaluation_id: int, art: dict[str, Any], artifact_path: str) -> None:
    """Insert the evaluation's rows (inside the caller's transaction, if any)."""
    con.execute(
        "INSERT INTO evaluations VALUES (?, ?::TIMESTAMP, ?, ?, ?, ?)",
        [
            evaluation_id,
            art["created_at"].rstrip("Z"),
            json.dumps(art["inputs"]),
            json.dumps({**art["options"], "loss": art["loss"]["name"], "estimator": art["estimator"]}),
            artifact_path,
            __version__,
        ],
    )
    rows = metric_rows(art)
    if rows:
        columns = list(zip(*rows, strict=True))
        _insert(
            con,
            "evaluation_metrics",
            {
                "evaluation_id": [evaluation_id] * len(rows),
                "input": list(columns[0]),
                "csf": list(columns[1]),
                "metric": list(columns[2]),
                "value": list(columns[3]),
                "ci_low": list(columns[4]),
                "ci_high": list(columns[5]),
                **_context(art, list(columns[0])),
                "metric_base": [split_metric(m, art["options"])[0] for m in columns[2]],
                "at_value": [split_metric(m, art["options"])[1] for m in columns[2]],
            },
        )
    curves: dict[str, list[Any]] = {
        k: []
        for k in (
            "evaluation_id",
            "input",
            "csf",
            "point",
            "coverage",
            "selective_risk",
            "generalized_risk",
            "threshold",
        )
    }
    for label, csf, m in _metrics_by_input(art):
        c = m["curve"]
        n = len(c["coverage"])
        curves["evaluation_id"] += [evaluation_id] * n
        curves["input"] += [label] * n
        curves["csf"] += [csf] * n
        curves["point"] += list(range(1, n + 1))
        for k in ("coverage", "selective_risk", "generalized_risk", "threshold"):
            curves[k] += c[k]
    if curves["point"]:
        _insert(con, "evaluation_curves", curves)
    if art.get("groups"):
        _save_groups(con, evaluation_id, art)


def _save_groups(con: duckdb.DuckDBPyConnection, evaluation_id: int, art: dict[str, Any]) -> None:
    """The per-group rows (evaluation_group_metrics, docs/metrics-extended.md)."""
    found = group_tables.rows(art["groups"])
    alphas = {grid_key(float(a)): float(a) for a in art["options"]["alpha_grid"]}
    bases, at = [], []
    for r in found:
        match = _PARAMETER.match(r[2])
        bases.append(match.group(1) if match else r[2])
        at.append(alphas.get(match.group(2), float(match.group(2))) if match else None)
    columns = list(zip(*found, strict=True))
    _insert(
        con,
        "evaluation_group_metrics",
        {
            "evaluation_id": [evaluation_id] * len(found),
            "group_column": [art["groups"]["column"]] * len(found),
            "csf": list(columns[0]),
            "group_value": list(columns[1]),
            "metric": list(columns[2]),
            "metric_base": bases,
            "at_value": at,
            "value": list(columns[3]),
            "ci_low": list(columns[4]),
            "ci_high": list(columns[5]),
        },
    )
