"""Calibrators kept in the warehouse (`calibrators`), and `--calibration FILE|ID` resolved to one.

The stored text is exactly what `riskcov calibrate --output` writes, so a file and its stored
copy have the same sha256.

>>> print(text({"method": "temperature_scaling", "temperature": 2.0}), end="")
{
  "method": "temperature_scaling",
  "temperature": 2.0
}
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import duckdb

from riskcov.errors import InputError
from riskcov.scoring.calibration.artifact import Calibrator, load, parse
from riskcov.warehouse.duckdb_helpers import one
from riskcov.warehouse.files import stale_temps


def text(doc: dict[str, Any]) -> str:
    """The artifact as strict JSON (sorted keys, floats by repr so they read back exactly)."""
    return json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n"


def save(con: duckdb.DuckDBPyConnection, doc: dict[str, Any]) -> tuple[int, str]:
    """Store an artifact (inside the caller's transaction); its new id and its text's sha256."""
    body = text(doc)
    sha = hashlib.sha256(body.encode()).hexdigest()
    row = one(con.execute("SELECT nextval('calibrator_id_seq')"))
    assert row is not None
    cid = int(row[0])
    con.execute(
        "INSERT INTO calibrators (calibrator_id, method, sha256, artifact, created_at)"
        " VALUES (?, ?, ?, ?, now()::TIMESTAMP)",
        [cid, doc["method"], sha, body],
    )
    return cid, sha


def recover_output(con: duckdb.DuckDBPyConnection, output: Path) -> None:
    """A killed `calibrate --output` may leave its staged file (`.<name>.<pid>.tmp`): renamed
    into place when a stored calibrator has its text (it died after COMMIT), else removed."""
    for tmp in stale_temps(output.parent, output.name):
        try:
            sha = hashlib.sha256(tmp.read_bytes()).hexdigest()
        except OSError:
            continue
        if one(con.execute("SELECT 1 FROM calibrators WHERE sha256 = ?", [sha])):
            os.replace(tmp, output)
        else:
            tmp.unlink(missing_ok=True)


def resolve(con: duckdb.DuckDBPyConnection, spec: str) -> tuple[Calibrator, dict[str, Any]]:
    """`--calibration FILE|ID`: the calibrator, and how the evaluation artifact records it
    (path or id, the sha256 of its text, its method)."""
    path = Path(spec)
    if path.is_file():
        cal = load(path)
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        return cal, {"path": spec, "sha256": sha, "method": cal.method, "features": list(cal.features)}
    row = one(
        con.execute(
            "SELECT calibrator_id, sha256, CAST(artifact AS VARCHAR) FROM calibrators"
            " WHERE CAST(calibrator_id AS VARCHAR) = ?",
            [spec.strip()],
        )
    )
    if row is None:
        raise InputError(
            f"--calibration {spec}: no such file, and no stored calibrator with that id "
            "(riskcov calibrate stores them)"
        )
    cid, sha, body = int(row[0]), str(row[1]), str(row[2])
    cal = parse(json.loads(body), f"calibrator {cid}")
    return cal, {"id": cid, "sha256": sha, "method": cal.method, "features": list(cal.features)}
