"""Field validators of the PHQ-8 run JSON (docs/formats.md): each raises FieldError naming the field."""

from __future__ import annotations

import json
import math
import re
from typing import Any

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
# signals with a bounded scale (docs/formats.md): a value outside is refused at ingest
RANGES: dict[str, tuple[float, float]] = {"verbalized_confidence": (1.0, 5.0)}
_INT_TEXT = re.compile(r"^-?\d+$")
# DuckDB BIGINT, the widest integer column
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_DOUBLE = 1.7976931348623157e308


class NonFinite:
    """Stands for a NaN/Infinity literal so the validator can name the field holding it."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


class FieldError(Exception):
    """A field-level problem; `where` is filled in as it travels up."""


def show(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    return repr(value)


def is_number(v: Any) -> bool:
    return (type(v) is int) or (type(v) is float)


def as_int(v: Any) -> int | None:
    """v as an int when it is an integer or an integral float, else None."""
    if type(v) is int:
        return v
    if type(v) is float and v.is_integer():
        return int(v)
    return None


def score(v: Any, field: str, nullable: bool) -> int | None:
    if v is None:
        if nullable:
            return None
        raise FieldError(f"{field} is null; a ground truth score is required")
    s = as_int(v)
    if s is None or not SCORE_MIN <= s <= SCORE_MAX:
        what = f"{SCORE_MIN}..{SCORE_MAX}" + (" or null" if nullable else "")
        raise FieldError(f"{field} = {show(v)} is not {what}")
    return s


def signal(kind: str, v: Any, field: str) -> Any:
    if v is None:
        return None
    if isinstance(v, NonFinite):
        raise FieldError(f"{field} = {v.text} is not valid strict JSON")
    if isinstance(v, bool) and kind != BOOL:
        raise FieldError(f"{field} = {show(v)} is a boolean, not a number")
    if kind == FLOAT:
        if is_number(v):
            return finite_float(v, field)
        raise FieldError(f"{field} = {show(v)} is not a number or null")
    if kind == INT:
        i = as_int(v)
        if i is None:
            raise FieldError(f"{field} = {show(v)} is not an integer or null")
        if not INT64_MIN <= i <= INT64_MAX:
            raise FieldError(f"{field} = {show(v)} is outside the 64-bit integer range")
        return i
    if kind == SOURCE:
        if v in _SOURCES and isinstance(v, str):
            return v
        raise FieldError(f'{field} = {show(v)} is not "llm", "keyword", "both" or null')
    if kind == BOOL:
        if isinstance(v, bool):
            return v
        raise FieldError(f"{field} = {show(v)} is not true, false or null")
    if kind == TEXT:
        if isinstance(v, str):
            return v
        raise FieldError(f"{field} = {show(v)} is not a string or null")
    if not isinstance(v, list):
        raise FieldError(f"{field} = {show(v)} is not a list of numbers or null")
    for i, x in enumerate(v):
        if x is not None and not is_number(x):
            raise FieldError(f"{field}[{i}] = {show(x)} is not a number or null")
    return [None if x is None else finite_float(x, f"{field}[{i}]") for i, x in enumerate(v)]


def in_range(key: str, v: Any, field: str) -> None:
    """Refuse a bounded signal (RANGES) outside its scale; null passes.

    >>> in_range("verbalized_confidence", 0.5, "v")
    Traceback (most recent call last):
      ...
    riskcov.formats.phq8_json.validate.FieldError: v = 0.5 is not in 1..5 or null
    """
    lo, hi = RANGES[key]
    if v is not None and not lo <= v <= hi:
        raise FieldError(f"{field} = {show(v)} is not in {lo:g}..{hi:g} or null")


def finite_float(v: int | float, field: str) -> float:
    """v as a finite double; a literal too large for one (1e400, 10**400) is an error."""
    try:
        f = float(v)
    except OverflowError:
        f = math.inf
    if not math.isfinite(f):
        raise FieldError(f"{field} = {show(v)} does not fit a finite double")
    return f


def check_finite(v: Any, field: str) -> None:
    if isinstance(v, NonFinite):
        raise FieldError(f"{field} = {v.text} is not valid strict JSON")
    if type(v) is float and not math.isfinite(v):
        raise FieldError(f"{field} = {show(v)} does not fit a finite double")
    if isinstance(v, dict):
        for k, x in v.items():
            check_finite(x, f"{field}.{k}")
    elif isinstance(v, list):
        for i, x in enumerate(v):
            check_finite(x, f"{field}[{i}]")


def participant_id_of(r: dict[str, Any]) -> int:
    if "participant_id" not in r:
        raise FieldError("participant_id is missing")
    v = r["participant_id"]
    pid = as_int(v)
    if pid is None and isinstance(v, str) and _INT_TEXT.match(v):
        pid = int(v)
    if pid is None:
        raise FieldError(f"participant_id = {show(v)} is not an integer")
    if not INT64_MIN <= pid <= INT64_MAX:
        raise FieldError(f"participant_id = {show(v)} is outside the 64-bit integer range")
    return pid


def items_map(r: dict[str, Any], key: str) -> dict[str, Any]:
    m = r.get(key)
    if not isinstance(m, dict):
        what = "missing" if m is None else show(m)
        raise FieldError(f"{key} is {what}; an object of the {len(ITEMS)} items is required")
    for name in m:
        if name not in ITEMS:
            raise FieldError(f"{key}.{name} is not a PHQ-8 item")
    for name in ITEMS:
        if name not in m:
            raise FieldError(f"{key}.{name} is missing")
    return m


def finite(v: Any, field: str) -> Any:
    if isinstance(v, NonFinite):
        raise FieldError(f"{field} = {v.text} is not valid strict JSON")
    if type(v) is bool:
        raise FieldError(f"{field} = {show(v)} is a boolean, not a number")
    return v
