"""The PHQ-8 run JSON of SPEC §2: validation with one precise message per bad field."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from riskcov.errors import InputError
from riskcov.formats import Columns, ParsedExperiment, ParsedRun

FORMAT_NAME = "phq8-run-json"
ITEMS = ["NoInterest", "Depressed", "Sleep", "Tired", "Appetite", "Failure", "Concentrating", "Moving"]
SCORE_MIN, SCORE_MAX = 0, 3

# kind of every known per-item signal; the column of the same name in item_signals
INT, FLOAT, SOURCE, FLOATS, BOOL, TEXT = "int", "float", "source", "floats", "bool", "text"
SIGNALS: dict[str, str] = {
    "llm_evidence_count": INT,
    "keyword_evidence_count": INT,
    "evidence_source": SOURCE,
    "retrieval_reference_count": INT,
    "retrieval_similarity_mean": FLOAT,
    "retrieval_similarity_max": FLOAT,
    "verbalized_confidence": FLOAT,
    "token_msp": FLOAT,
    "token_pe": FLOAT,
    "token_energy": FLOAT,
    "consistency_modal_confidence": FLOAT,
    "consistency_score_std": FLOAT,
    "consistency_na_rate": FLOAT,
    "consistency_samples": FLOATS,
    "inference_used": BOOL,
    "inference_type": TEXT,
    "inference_marker": TEXT,
}
# columns that travel as a typed array plus a `<name>__null` mask
NULL_MASKED = frozenset(k for k, kind in SIGNALS.items() if kind in (INT, FLOAT, BOOL))
_SOURCES = {"llm", "keyword", "both"}
_INT_TEXT = re.compile(r"^-?\d+$")
# DuckDB BIGINT, the widest integer column
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_MAX_DOUBLE = 1.7976931348623157e308


class _NonFinite:
    """Stands for a NaN/Infinity literal so the validator can name the field holding it."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


class _Bad(Exception):
    """A field-level problem; `where` is filled in as it travels up."""


def _show(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    return repr(value)


def _is_number(v: Any) -> bool:
    return (type(v) is int) or (type(v) is float)


def _as_int(v: Any) -> int | None:
    """v as an int when it is an integer or an integral float, else None."""
    if type(v) is int:
        return v
    if type(v) is float and v.is_integer():
        return int(v)
    return None


def _score(v: Any, field: str, nullable: bool) -> int | None:
    if v is None:
        if nullable:
            return None
        raise _Bad(f"{field} is null; a ground truth score is required")
    s = _as_int(v)
    if s is None or not SCORE_MIN <= s <= SCORE_MAX:
        what = f"{SCORE_MIN}..{SCORE_MAX}" + (" or null" if nullable else "")
        raise _Bad(f"{field} = {_show(v)} is not {what}")
    return s


def _signal(kind: str, v: Any, field: str) -> Any:
    if v is None:
        return None
    if isinstance(v, _NonFinite):
        raise _Bad(f"{field} = {v.text} is not valid strict JSON")
    if isinstance(v, bool) and kind != BOOL:
        raise _Bad(f"{field} = {_show(v)} is a boolean, not a number")
    if kind == FLOAT:
        if _is_number(v):
            return _finite_float(v, field)
        raise _Bad(f"{field} = {_show(v)} is not a number or null")
    if kind == INT:
        i = _as_int(v)
        if i is None:
            raise _Bad(f"{field} = {_show(v)} is not an integer or null")
        if not INT64_MIN <= i <= INT64_MAX:
            raise _Bad(f"{field} = {_show(v)} is outside the 64-bit integer range")
        return i
    if kind == SOURCE:
        if v in _SOURCES and isinstance(v, str):
            return v
        raise _Bad(f'{field} = {_show(v)} is not "llm", "keyword", "both" or null')
    if kind == BOOL:
        if isinstance(v, bool):
            return v
        raise _Bad(f"{field} = {_show(v)} is not true, false or null")
    if kind == TEXT:
        if isinstance(v, str):
            return v
        raise _Bad(f"{field} = {_show(v)} is not a string or null")
    if not isinstance(v, list):
        raise _Bad(f"{field} = {_show(v)} is not a list of numbers or null")
    for i, x in enumerate(v):
        if x is not None and not _is_number(x):
            raise _Bad(f"{field}[{i}] = {_show(x)} is not a number or null")
    return [None if x is None else _finite_float(x, f"{field}[{i}]") for i, x in enumerate(v)]


def _finite_float(v: int | float, field: str) -> float:
    """v as a finite double; a literal too large for one (1e400, 10**400) is an error."""
    try:
        f = float(v)
    except OverflowError:
        f = math.inf
    if not math.isfinite(f):
        raise _Bad(f"{field} = {_show(v)} does not fit a finite double")
    return f


def _check_finite(v: Any, field: str) -> None:
    if isinstance(v, _NonFinite):
        raise _Bad(f"{field} = {v.text} is not valid strict JSON")
    if type(v) is float and not math.isfinite(v):
        raise _Bad(f"{field} = {_show(v)} does not fit a finite double")
    if isinstance(v, dict):
        for k, x in v.items():
            _check_finite(x, f"{field}.{k}")
    elif isinstance(v, list):
        for i, x in enumerate(v):
            _check_finite(x, f"{field}[{i}]")


def _participant_id(r: dict[str, Any]) -> int:
    if "participant_id" not in r:
        raise _Bad("participant_id is missing")
    v = r["participant_id"]
    pid = _as_int(v)
    if pid is None and isinstance(v, str) and _INT_TEXT.match(v):
        pid = int(v)
    if pid is None:
        raise _Bad(f"participant_id = {_show(v)} is not an integer")
    if not INT64_MIN <= pid <= INT64_MAX:
        raise _Bad(f"participant_id = {_show(v)} is outside the 64-bit integer range")
    return pid


class _Columns:
    """Growing column lists for one experiment."""

    def __init__(self) -> None:
        self.p: dict[str, list[Any]] = {k: [] for k in ("pid", "success", "error", "has_sig")}
        self.i: dict[str, list[Any]] = {k: [] for k in ("pid", "idx", "name", "pred", "gt")}
        self.s: dict[str, list[Any]] = {k: [] for k in ("pid", "idx", "keys", "extra", *SIGNALS)}


def _items_map(r: dict[str, Any], key: str) -> dict[str, Any]:
    m = r.get(key)
    if not isinstance(m, dict):
        raise _Bad(f"{key} is {'missing' if m is None else _show(m)}; an object of the 8 items is required")
    for name in m:
        if name not in ITEMS:
            raise _Bad(f"{key}.{name} is not a PHQ-8 item")
    for name in ITEMS:
        if name not in m:
            raise _Bad(f"{key}.{name} is missing")
    return m


def _add_participant(r: dict[str, Any], pid: int, cols: _Columns) -> None:
    success = r.get("success")
    if not isinstance(success, bool):
        raise _Bad(f"success = {_show(success) if 'success' in r else 'missing'} is not true or false")
    error = r.get("error")
    if error is not None and not isinstance(error, str):
        error = json.dumps(error, default=repr)
    cols.p["pid"].append(pid)
    cols.p["success"].append(success)
    cols.p["error"].append(error)
    if not success:
        cols.p["has_sig"].append(False)
        return
    preds = _items_map(r, "predicted_items")
    gts = _items_map(r, "ground_truth_items")
    sigs = r.get("item_signals")
    if sigs is not None:
        sigs = _items_map(r, "item_signals")
    cols.p["has_sig"].append(sigs is not None)
    ic, sc = cols.i, cols.s
    float_columns = [(k, sc[k]) for k, kind in SIGNALS.items() if kind == FLOAT]
    int_columns = [(k, sc[k]) for k, kind in SIGNALS.items() if kind == INT]
    other_columns = [(k, kind, sc[k]) for k, kind in SIGNALS.items() if kind not in (FLOAT, INT)]
    for idx, name in enumerate(ITEMS):
        pv, gv = preds[name], gts[name]
        pred = pv if (type(pv) is int and SCORE_MIN <= pv <= SCORE_MAX) else _score(
            _finite(pv, f"predicted_items.{name}"), f"predicted_items.{name}", True)
        gt = gv if (type(gv) is int and SCORE_MIN <= gv <= SCORE_MAX) else _score(
            _finite(gv, f"ground_truth_items.{name}"), f"ground_truth_items.{name}", False)
        ic["pid"].append(pid)
        ic["idx"].append(idx)
        ic["name"].append(name)
        ic["pred"].append(pred)
        ic["gt"].append(gt)
        if sigs is None:
            continue
        item_sig = sigs[name]
        field = f"item_signals.{name}"
        if not isinstance(item_sig, dict):
            raise _Bad(f"{field} = {_show(item_sig)} is not an object")
        extra: dict[str, Any] = {}
        unknown = item_sig.keys() - SIGNALS.keys()
        if unknown:
            for key, value in item_sig.items():  # in the document's order
                if key in unknown:
                    _check_finite(value, f"{field}.{key}")
                    extra[key] = value
        # fast paths for the common well-typed values (and nulls); the rest is checked in full
        for key, column in float_columns:
            v = item_sig.get(key)
            if v is None or (type(v) is float and -_MAX_DOUBLE <= v <= _MAX_DOUBLE):
                column.append(v)
            else:
                column.append(_signal(FLOAT, v, f"{field}.{key}"))
        for key, column in int_columns:
            v = item_sig.get(key)
            if v is None or (type(v) is int and INT64_MIN <= v <= INT64_MAX):
                column.append(v)
            else:
                column.append(_signal(INT, v, f"{field}.{key}"))
        for key, kind, column in other_columns:
            column.append(_signal(kind, item_sig.get(key), f"{field}.{key}"))
        sc["pid"].append(pid)
        sc["idx"].append(idx)
        sc["keys"].append(list(item_sig))
        sc["extra"].append(json.dumps(extra) if extra else None)


def _finite(v: Any, field: str) -> Any:
    if isinstance(v, _NonFinite):
        raise _Bad(f"{field} = {v.text} is not valid strict JSON")
    if type(v) is bool:
        raise _Bad(f"{field} = {_show(v)} is a boolean, not a number")
    return v


def _nullable(values: list[Any], dtype: str) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """A typed array and its null mask (DuckDB reads NaN in a float array as NaN, not NULL)."""
    nulls = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
    filled = [0 if v is None else v for v in values]
    return np.array(filled, dtype=dtype), nulls


def _to_columns(cols: _Columns) -> tuple[Columns, Columns, Columns]:
    obj = _objects
    p: Columns = {
        "participant_id": np.array(cols.p["pid"], dtype=np.int64),
        "success": np.array(cols.p["success"], dtype=bool),
        "error": obj(cols.p["error"]),
        "has_signals": np.array(cols.p["has_sig"], dtype=bool),
    }
    pred, pred_null = _nullable(cols.i["pred"], "int16")
    i: Columns = {
        "participant_id": np.array(cols.i["pid"], dtype=np.int64),
        "item_index": np.array(cols.i["idx"], dtype=np.int16),
        "item_name": obj(cols.i["name"]),
        "pred": pred,
        "pred_null": pred_null,
        "gt": np.array(cols.i["gt"], dtype=np.int16),
    }
    s: Columns = {
        "participant_id": np.array(cols.s["pid"], dtype=np.int64),
        "item_index": np.array(cols.s["idx"], dtype=np.int16),
        "signal_keys": obj(cols.s["keys"]),
        "extra_signals": obj(cols.s["extra"]),
    }
    for key, kind in SIGNALS.items():
        if kind in (INT, FLOAT, BOOL):
            dtype = {INT: "int64", FLOAT: "float64", BOOL: "bool"}[kind]
            s[key], s[key + "__null"] = _nullable(cols.s[key], dtype)
        else:
            s[key] = obj(cols.s[key])
    return p, i, s


def _experiment(exp: Any, index: int) -> ParsedExperiment:
    if not isinstance(exp, dict):
        raise _Bad(f"is {_show(exp)}, not an object")
    prov = exp.get("provenance")
    res = exp.get("results")
    if not isinstance(res, dict):
        raise _Bad(f"results is {'missing' if res is None else _show(res)}, not an object")
    rows = res.get("results")
    if not isinstance(rows, list):
        raise _Bad(f"results.results is {'missing' if rows is None else _show(rows)}, not a list")
    mode = _mode(exp)
    cols = _Columns()
    seen: set[int] = set()
    for pos, r in enumerate(rows):
        if not isinstance(r, dict):
            raise _Bad(f"results.results[{pos}] is {_show(r)}, not an object")
        try:
            pid = _participant_id(r)
        except _Bad as bad:
            raise _Bad(f"results.results[{pos}]: {bad}") from None
        try:
            if pid in seen:
                raise _Bad("participant_id is duplicated in this experiment")
            seen.add(pid)
            _add_participant(r, pid, cols)
        except _Bad as bad:
            raise _Bad(f"participant {pid}: {bad}") from None
    if prov is not None:
        _check_finite(prov, "provenance")
    p, i, s = _to_columns(cols)
    return ParsedExperiment(
        index=index,
        mode=mode,
        provenance_json=json.dumps(prov) if prov is not None else None,
        item_names=list(ITEMS),
        score_min=SCORE_MIN,
        score_max=SCORE_MAX,
        participants=p,
        items=i,
        signals=s,
    )


def _mode(exp: dict[str, Any]) -> str | None:
    prov, res = exp.get("provenance"), exp.get("results")
    for source in (prov, res):
        if isinstance(source, dict) and isinstance(source.get("mode"), str):
            return str(source["mode"])
    return None


def _load(path: Path, data: bytes) -> tuple[Any, bool]:
    """The document, and whether it holds a NaN/Infinity literal anywhere."""
    seen: list[_NonFinite] = []

    def constant(text: str) -> _NonFinite:
        seen.append(_NonFinite(text))
        return seen[-1]

    try:
        return json.loads(data, parse_constant=constant), bool(seen)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        if _truncated(data):
            raise InputError(f"{path}: truncated JSON: the file ends inside an open object, list "
                             "or string") from None
        raise InputError(
            f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise InputError(f"{path}: invalid JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer literal longer than Python's digit limit
        raise InputError(f"{path}: invalid JSON: {str(exc).splitlines()[0]}") from None


def parse(path: Path, data: bytes) -> ParsedRun:
    """Validate a run file and return its rows; InputError names file, experiment, participant, field."""
    doc, non_finite = _load(path, data)
    if not isinstance(doc, dict):
        raise InputError(f"{path}: the top level is {_show(doc)}, not an object")
    meta = doc.get("run_metadata")
    if not isinstance(meta, dict):
        raise InputError(f"{path}: run_metadata is missing or not an object")
    run_id = meta.get("run_id")
    if not isinstance(run_id, str) or not run_id:
        raise InputError(f"{path}: run_metadata.run_id = {_show(run_id)} is not a non-empty string")
    try:
        _check_finite(meta, "run_metadata")
    except _Bad as bad:
        raise InputError(f"{path}: {bad}") from None
    experiments = doc.get("experiments")
    if not isinstance(experiments, list) or not experiments:
        what = ("missing" if experiments is None else "empty" if experiments == []
                else _show(experiments))
        raise InputError(f"{path}: experiments is {what}; at least one experiment is required")
    modes = [_mode(e) if isinstance(e, dict) else None for e in experiments]
    parsed = []
    for index, exp in enumerate(experiments):
        try:
            parsed.append(_experiment(exp, index))
        except _Bad as bad:
            raise InputError(f"{path}: experiment {_label(modes, index)}: {bad}") from None
    where = _first_non_finite(doc, []) if non_finite else None
    if where is not None:  # strict JSON everywhere, also in fields riskcov does not store
        raise InputError(f"{path}: {_describe(doc, modes, where)} is not valid strict JSON")
    text = _text_or_none
    return ParsedRun(
        run_id=run_id,
        git_commit=text(meta.get("git_commit")),
        timestamp=text(meta.get("timestamp")),
        metadata_json=json.dumps(meta),
        input_format=FORMAT_NAME,
        experiments=parsed,
    )


def _label(modes: list[str | None], index: int) -> str:
    mode = modes[index]
    if mode and modes.count(mode) == 1:
        return mode
    return f"#{index}" + (f" ({mode})" if mode else "")


def _first_non_finite(value: Any, where: list[str | int]) -> list[str | int] | None:
    """The path to the first NaN/Infinity literal in the document, if any."""
    if isinstance(value, _NonFinite):
        return where
    items = value.items() if isinstance(value, dict) else (
        enumerate(value) if isinstance(value, list) else ())
    for key, child in items:
        found = _first_non_finite(child, [*where, key])
        if found is not None:
            return found
    return None


def _describe(doc: Any, modes: list[str | None], where: list[str | int]) -> str:
    """`experiment X, participant P: field = NaN` (or the plain path outside results)."""
    value = doc
    for key in where:
        value = value[key]
    if where[:1] == ["experiments"] and len(where) >= 5 and where[2:4] == ["results", "results"]:
        exp = _label(modes, int(where[1]))
        row = doc["experiments"][where[1]]["results"]["results"][where[4]]
        field = ".".join(str(k) for k in where[5:])
        return f"experiment {exp}, participant {row.get('participant_id')}: {field} = {value.text}"
    dotted = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in where).lstrip(".")
    return f"{dotted} = {value.text}"


def _objects(values: list[Any]) -> np.ndarray[Any, Any]:
    """An object array of `values`; the trailing None keeps lists from becoming a 2-D array."""
    return np.array([*values, None], dtype=object)[:-1]


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _truncated(data: bytes) -> bool:
    """True when the text ends inside an open object or list (a cut-off file)."""
    depth, in_str, escape = 0, False, False
    for ch in data.decode("utf-8", "replace"):
        if in_str:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    return depth > 0 or in_str
