"""`riskcov curve`: RC curves sampled at K coverages (evaluate's curve_grid) as a table file
for plots and cross-method tables, one row per (input, CSF, grid point)."""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from riskcov.errors import UsageError
from riskcov.evaluation.options import Options
from riskcov.report.curves import input_names
from riskcov.warehouse.duckdb_helpers import registered
from riskcov.warehouse.files import write_output

FORMATS = ("csv", "parquet", "json")
COLUMNS = (
    "input",
    "run_id",
    "experiment_id",
    "csf",
    "point",
    "coverage",
    "selective_risk",
    "generalized_risk",
)


def curve_rows(con: duckdb.DuckDBPyConnection, opts: Options, points: int) -> list[dict[str, Any]]:
    """Evaluate without bootstrap and without storing anything (inputs ingested on the fly are
    rolled back), and flatten every curve_grid."""
    from riskcov.evaluation.run import run

    one = replace(opts, bootstrap_resamples=0, curve_points=points)
    one.check()
    con.execute("BEGIN TRANSACTION")
    try:
        art = run(con, one).artifact
    finally:
        con.execute("ROLLBACK")
    paired = art["comparison"]["enabled"]
    names = input_names(art["inputs"])
    rows: list[dict[str, Any]] = []
    for csf, entry in art["confidence_variants"].items():
        for k, inp in enumerate(art["inputs"]):
            grid = (entry[f"input_{k}"] if paired else entry)["curve_grid"]
            for j, c in enumerate(grid["coverage"]):
                rows.append(
                    {
                        "input": names[k],
                        "run_id": inp["run_id"],
                        "experiment_id": inp["experiment_id"],
                        "csf": csf,
                        "point": j,
                        "coverage": c,
                        "selective_risk": grid["selective_risk"][j],
                        "generalized_risk": grid["generalized_risk"][j],
                    }
                )
    return rows


def check_format(fmt: str) -> None:
    """A usage error for an unknown --format, before any work."""
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt}: choose one of {', '.join(FORMATS)}")


def write(rows: list[dict[str, Any]], fmt: str, output: Path) -> None:
    """Write rows as CSV or Parquet (DuckDB's COPY) or a JSON array, replacing `output` whole
    (riskcov.warehouse.files: a device is written in place, never replaced)."""
    check_format(fmt)
    if fmt == "json":
        data = (json.dumps(rows, indent=1, allow_nan=False) + "\n").encode()
    else:
        with tempfile.TemporaryDirectory() as folder:
            made = Path(folder) / f"curve.{fmt}"
            _copy(rows, fmt, made)
            data = made.read_bytes()
    write_output(output, data, "the curve")


def _copy(rows: list[dict[str, Any]], fmt: str, path: Path) -> None:
    con = duckdb.connect()
    try:
        columns = {
            "input": np.array([r["input"] for r in rows], dtype=object),
            "run_id": np.array([r["run_id"] for r in rows], dtype=object),
            "experiment_id": np.array([r["experiment_id"] for r in rows], dtype=np.int64),
            "csf": np.array([r["csf"] for r in rows], dtype=object),
            "point": np.array([r["point"] for r in rows], dtype=np.int64),
            **{
                k: np.array([np.nan if r[k] is None else r[k] for r in rows], dtype=np.float64)
                for k in ("coverage", "selective_risk", "generalized_risk")
            },
        }
        # NaN from numpy stands for "no working point": written as NULL, in the rows' order
        cols = ", ".join(
            f"CASE WHEN isnan({c}) THEN NULL ELSE {c} END AS {c}"
            if c in ("selective_risk", "generalized_risk")
            else c
            for c in COLUMNS
        )
        options = "FORMAT csv, HEADER true" if fmt == "csv" else "FORMAT parquet"
        with registered(con, "_curve", columns):
            con.execute(f"COPY (SELECT {cols} FROM _curve) TO '{_quote(path)}' ({options})")
    finally:
        con.close()


def _quote(path: Path) -> str:
    return str(path).replace("'", "''")
