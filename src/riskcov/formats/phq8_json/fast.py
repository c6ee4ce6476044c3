"""The fast reader of the PHQ-8 run JSON: DuckDB's JSON reader parses the participants and SQL
checks every rule of SPEC §2 on them (`stage.sql`).

`stage(con, path, data)` returns the staged run when the whole file is clean, None when
anything is unusual (a problem, or a rare shape such as a float among the unknown signals);
the caller then runs the Python reader on the file, which accepts it with the same rows or
names the first problem in file order. Staging happens on a cursor of its own, into an
in-memory database attached beside the warehouse, so a parse error never touches the
caller's transaction; `fill` copies the staged rows and detaches it.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from riskcov.formats import Columns, ExperimentRecord
from riskcov.formats.phq8_json.columns import ExperimentRows
from riskcov.formats.phq8_json.split import Split, lax_literal, split
from riskcov.formats.phq8_json.validate import (
    BOOL,
    FLOAT,
    FLOATS,
    INT,
    ITEMS,
    SCORE_MAX,
    SCORE_MIN,
    SIGNALS,
    NULL_MASKED,
    FieldError,
    check_finite,
)
from riskcov.formats.phq8_json.stage_sql import STAGE_SQL

STAGE = "_riskcov_phq8_stage"
# below this size the Python reader is the quicker one (the SQL path costs ~0.1 s to set up)
MIN_BYTES = 1 << 20
_JSON_TYPES: dict[str, Any] = {INT: "BIGINT", FLOAT: "DOUBLE", FLOATS: ["DOUBLE"], BOOL: "BOOLEAN"}


@dataclass
class Staged:
    """A clean run staged in `STAGE`: its metadata and its experiments."""

    run_id: str
    git_commit: str | None
    timestamp: str | None
    metadata_json: str
    experiments: list[ExperimentRecord]
    n_participants: int
    n_items: int


SIGNAL_NAMES = ", ".join(SIGNALS)


def _sql(file: str) -> str:
    """STAGE_SQL with the file, the item and the signal lists filled in."""
    text = STAGE_SQL.replace("{FILE}", file.replace("'", "''"))
    known = ", ".join(f"'{k}'" for k in SIGNALS)
    paths = ", ".join(f"'$.{k}'" for k in SIGNALS)
    typed = json.dumps({k: _JSON_TYPES.get(kind, "VARCHAR") for k, kind in SIGNALS.items()})
    columns = ",\n    ".join(_signal_column(i, k, kind) for i, (k, kind) in enumerate(SIGNALS.items()))
    checks = "\n        AND ".join(_signal_check(i, k, kind) for i, (k, kind) in enumerate(SIGNALS.items()))
    return (
        text.replace("{STAGE}", STAGE)
        .replace("{ITEMS}", ", ".join(f"'{n}'" for n in ITEMS))
        .replace("{SORTED_ITEMS}", ", ".join(f"'{n}'" for n in sorted(ITEMS)))
        .replace("{ITEM_PATHS}", ", ".join(f"'$.{n}'" for n in ITEMS))
        .replace("{KNOWN}", known)
        .replace("{SIGNAL_PATHS}", paths)
        .replace("{SIGNAL_TYPES}", typed)
        .replace("{SIGNAL_NULLS}", json.dumps(dict.fromkeys(SIGNALS)))
        .replace("{SIGNAL_COLUMNS}", columns)
        .replace("{SIGNAL_CHECKS}", checks)
        .replace("{SCORES}", ", ".join(str(s) for s in range(SCORE_MIN, SCORE_MAX + 1)))
    )


def _signal_column(i: int, key: str, kind: str) -> str:
    return f"v.{key} AS {key}"


def _signal_check(i: int, key: str, kind: str) -> str:
    """The value of a known signal is exactly what the Python reader takes unchanged."""
    t = f"coalesce(t[{i + 1}], 'NULL')"
    if kind == INT:
        return f"({t} = 'NULL' OR ({t} IN ('BIGINT', 'UBIGINT') AND v.{key} IS NOT NULL))"
    if kind == FLOAT:
        return f"({t} = 'NULL' OR ({t} IN ('BIGINT', 'UBIGINT', 'DOUBLE') AND isfinite(v.{key})))"
    if kind == FLOATS:
        return (
            f"({t} = 'NULL' OR ({t} = 'ARRAY' AND list_bool_and(list_transform("
            f"coalesce(json_type(sv, '$.{key}[*]'), []), lambda x: x IN ('BIGINT', 'UBIGINT', 'DOUBLE', 'NULL'))) "
            f"AND coalesce(list_bool_and(list_transform(v.{key}, lambda x: x IS NULL OR isfinite(x))), true)))"
        )
    if kind == BOOL:
        return f"({t} IN ('NULL', 'BOOLEAN'))"
    if kind == "source":
        return f"({t} = 'NULL' OR ({t} = 'VARCHAR' AND v.{key} IN ('llm', 'keyword', 'both')))"
    return f"({t} IN ('NULL', 'VARCHAR'))"


def stage(con: duckdb.DuckDBPyConnection, path: Path, data: bytes) -> Staged | None:
    """Stage a clean run file, or None (nothing staged) when the Python reader must look."""
    if len(data) < MIN_BYTES or not data.lstrip(b" \t\r\n").startswith(b"{") or lax_literal(data):
        return None
    cut = split(data)
    if cut is None:
        return None
    head = _skeleton(cut)
    if head is None:
        return None
    cur = con.cursor()
    try:
        cur.execute(f"ATTACH IF NOT EXISTS ':memory:' AS {STAGE}")
        if not _read(cur, data, cut, head[1]):
            drop(cur)
            return None
    finally:
        cur.close()
    staged, _ = head
    counts = con.execute(
        f"SELECT (SELECT count(*) FROM {STAGE}.participants), (SELECT count(*) FROM {STAGE}.items)"
    ).fetchone()
    assert counts is not None
    staged.n_participants, staged.n_items = int(counts[0]), int(counts[1])
    return staged


def _read(cur: duckdb.DuckDBPyConnection, data: bytes, cut: Split, bounds: list[tuple[int, int]]) -> bool:
    """Parse the pieces with read_json and check them; False when anything is off."""
    fd, name = tempfile.mkstemp(prefix="riskcov-phq8-", suffix=".json")
    try:
        view = memoryview(data)
        pretty = b"\n" in data  # a newline outside strings is whitespace: one line per object
        with os.fdopen(fd, "wb", buffering=1 << 20) as out:
            for k, (a, b) in enumerate(zip(cut.starts.tolist(), cut.ends.tolist(), strict=True)):
                piece = bytes(view[a : b + 1]).replace(b"\n", b" ") if pretty else view[a : b + 1]
                out.write(b'{"k":%d,"p":' % k)
                out.write(piece)
                out.write(b"}\n")
        cur.execute(f"CREATE OR REPLACE TABLE {STAGE}.bounds (exp_index INTEGER, first_k BIGINT, last_k BIGINT)")
        cur.executemany(f"INSERT INTO {STAGE}.bounds VALUES (?, ?, ?)", [[i, a, b] for i, (a, b) in enumerate(bounds)])
        for statement in _statements(name):
            cur.execute(statement)
    except duckdb.Error:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)
    bad = cur.execute(f"SELECT count(*) FROM {STAGE}.problems").fetchone()
    return bad is not None and bad[0] == 0


def _statements(file: str) -> list[str]:
    return [s for s in (p.strip() for p in _sql(file).split(";\n")) if s]


def _skeleton(cut: Split) -> tuple[Staged, list[tuple[int, int]]] | None:
    """The run's metadata and experiments from the skeleton; None unless it is exactly a
    valid run whose results.results lists hold the cut objects, in order."""
    try:
        doc = json.loads(cut.skeleton, parse_constant=_refuse)
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict):
        return None
    meta, experiments = doc.get("run_metadata"), doc.get("experiments")
    if not isinstance(meta, dict) or not isinstance(experiments, list) or not experiments:
        return None
    run_id = meta.get("run_id")
    if not isinstance(run_id, str) or not run_id or not _finite(meta):
        return None
    records, bounds, expected = [], [], 0
    for index, exp in enumerate(experiments):
        res = exp.get("results") if isinstance(exp, dict) else None
        rows = res.get("results") if isinstance(res, dict) else None
        if not isinstance(rows, list) or rows != list(range(expected, expected + len(rows))):
            return None
        if any(type(r) is not int for r in rows):
            return None
        bounds.append((expected, expected + len(rows) - 1))
        expected += len(rows)
        assert isinstance(exp, dict)
        prov = exp.get("provenance")
        if prov is not None and not _finite(prov):
            return None
        from riskcov.formats.phq8_json.parse import _mode

        records.append(
            ExperimentRecord(
                index=index,
                loss_kind="abs_error",
                mode=_mode(exp),
                provenance_json=json.dumps(prov) if prov is not None else None,
                item_names=list(ITEMS),
                score_min=SCORE_MIN,
                score_max=SCORE_MAX,
            )
        )
    if expected != len(cut.starts):
        return None
    text = _text_or_none
    staged = Staged(
        run_id, text(meta.get("git_commit")), text(meta.get("timestamp")), json.dumps(meta), records, 0, 0
    )
    return staged, bounds


def _refuse(text: str) -> Any:
    raise ValueError(text)


def _finite(value: Any) -> bool:
    try:
        check_finite(value, "")
    except FieldError:
        return False
    return True


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def fill(con: duckdb.DuckDBPyConnection, experiment_ids: list[int]) -> None:
    """Copy the staged rows under the experiment ids the orchestrator drew, then drop them."""
    for index, eid in enumerate(experiment_ids):
        con.execute(
            "INSERT INTO participants SELECT ?, participant_id, success, error, has_signals "
            f"FROM {STAGE}.participants WHERE exp_index = ? ORDER BY k",
            [eid, index],
        )
        con.execute(
            "INSERT INTO items SELECT ?, participant_id, item_index, item_name, pred, gt "
            f"FROM {STAGE}.items WHERE exp_index = ? ORDER BY k, item_index",
            [eid, index],
        )
        con.execute(
            f"INSERT INTO item_signals SELECT ?, participant_id, item_index, signal_keys, {SIGNAL_NAMES}, "
            f"extra_signals FROM {STAGE}.signals WHERE exp_index = ? ORDER BY k, item_index",
            [eid, index],
        )
    drop(con)


def columns(con: duckdb.DuckDBPyConnection, index: int) -> ExperimentRows:
    """One staged experiment as the typed columns (and null masks) of the Python reader."""

    def fetch(sql: str) -> Columns:
        return {k: np.asarray(v) for k, v in con.execute(sql, [index]).fetchnumpy().items()}

    where = f"WHERE exp_index = ? ORDER BY k"
    p = fetch(f"SELECT participant_id, success, error, has_signals FROM {STAGE}.participants {where}")
    i = fetch(
        "SELECT participant_id, item_index::SMALLINT AS item_index, item_name, coalesce(pred, 0) AS pred, "
        f"pred IS NULL AS pred_null, gt FROM {STAGE}.items {where}, item_index"
    )
    masked = ", ".join(
        f"coalesce({k}, {'false' if kind == BOOL else '0'}) AS {k}, {k} IS NULL AS {k}__null"
        if k in NULL_MASKED
        else k
        for k, kind in SIGNALS.items()
    )
    s = fetch(
        f"SELECT participant_id, item_index::SMALLINT AS item_index, signal_keys, {masked}, extra_signals "
        f"FROM {STAGE}.signals {where}, item_index"
    )
    return ExperimentRows(p, i, s)


def drop(con: duckdb.DuckDBPyConnection) -> None:
    """Forget the staged rows (on a cursor: never inside the caller's transaction)."""
    cur = con.cursor()
    try:
        cur.execute(f"DETACH DATABASE IF EXISTS {STAGE}")
    finally:
        cur.close()
