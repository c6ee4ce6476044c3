"""A column-wise path for an experiment's participants: the same checks as the row-by-row
validator (columns.add_participant) and the same columns as to_columns, but each check runs
once per column (types by set(map(type, ...)), ranges in numpy) instead of once per value.

It only accepts: every check passing, and the common shapes (integer participant ids, one
key layout for every item's signals). Anything else returns None and the caller runs the
row-by-row validator, which names the first problem in file order and handles the rare shapes
(ids given as text or integral floats, mixed layouts, ...); so a message never comes from here.
"""

from __future__ import annotations

import json
from itertools import chain, compress, repeat
from operator import is_, itemgetter
from typing import Any

import numpy as np

from riskcov.formats import Columns
from riskcov.formats.phq8_json.columns import ExperimentRows, base_columns, objects
from riskcov.formats.phq8_json.validate import (
    BOOL,
    FLOAT,
    FLOATS,
    INT,
    ITEMS,
    RANGES,
    SCORE_MAX,
    SCORE_MIN,
    SIGNALS,
    SOURCE,
    TEXT,
)

_NONE = type(None)
_ITEM_SET = frozenset(ITEMS)
_BY_ITEM = itemgetter(*ITEMS)
_SOURCES = {"llm", "keyword", "both", None}


class _Refused(Exception):
    """A check failed or a shape is not handled here: the row-by-row validator decides."""


def _types(values: list[Any], *allowed: type) -> None:
    if not set(map(type, values)) <= set(allowed):
        raise _Refused


def _field(maps: list[dict[str, Any]], key: str) -> list[Any]:
    return list(map(dict.get, maps, repeat(key)))


def _nullable(values: list[Any], dtype: str) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """columns.nullable's arrays; an int too large for the dtype refuses."""
    nulls = np.fromiter(map(is_, values, repeat(None)), dtype=bool, count=len(values))
    try:
        if nulls.any():
            filled = np.array(values, dtype=object)
            filled[nulls] = 0
            return filled.astype(dtype), nulls
        return np.array(values, dtype=dtype), nulls
    except OverflowError:
        raise _Refused from None


def _items_maps(maps: list[Any]) -> None:
    """Every map an object of exactly the eight items."""
    _types(maps, dict)
    for layout in set(map(tuple, maps)):
        if len(layout) != len(ITEMS) or not _ITEM_SET.issuperset(layout):
            raise _Refused


def _scores(values: list[Any], nullable: bool) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    _types(values, int, _NONE) if nullable else _types(values, int)
    arr, nulls = _nullable(values, "int64")
    if ((arr < SCORE_MIN) | (arr > SCORE_MAX)).any():
        raise _Refused
    return arr.astype(np.int16), nulls


def _finite(arr: np.ndarray[Any, Any]) -> None:
    if not np.isfinite(arr).all():
        raise _Refused


def _signal(kind: str, key: str, values: list[Any], out: Columns) -> None:
    if kind in (INT, FLOAT, BOOL):
        allowed = {INT: (int, _NONE), FLOAT: (int, float, _NONE), BOOL: (bool, _NONE)}[kind]
        _types(values, *allowed)
        dtype = {INT: "int64", FLOAT: "float64", BOOL: "bool"}[kind]
        out[key], out[key + "__null"] = _nullable(values, dtype)
        if kind == FLOAT:
            _finite(out[key])
        if key in RANGES:
            lo, hi = RANGES[key]
            if ((out[key] < lo) | (out[key] > hi))[~out[key + "__null"]].any():
                raise _Refused
    elif kind == SOURCE:
        _types(values, str, _NONE)
        if not set(values) <= _SOURCES:
            raise _Refused
        out[key] = objects(values)
    elif kind == TEXT:
        _types(values, str, _NONE)
        out[key] = objects(values)
    else:
        assert kind == FLOATS
        _types(values, list, _NONE)
        lists = [v for v in values if v is not None]
        flat = list(chain.from_iterable(lists))
        _types(flat, int, float, _NONE)
        cells = np.array([*flat, None], dtype=object)[:-1]
        numbers = ~np.fromiter(map(is_, flat, repeat(None)), dtype=bool, count=len(flat))
        try:
            as_floats = cells[numbers].astype(np.float64)
        except OverflowError:
            raise _Refused from None
        _finite(as_floats)
        if int in set(map(type, flat)):  # the validator stores every number as a float
            cells[numbers] = as_floats
            flat = cells.tolist()
            ends = np.cumsum(np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))).tolist()
            lists = [flat[a:b] for a, b in zip([0, *ends], ends, strict=False)]
            it = iter(lists)
            values = [None if v is None else next(it) for v in values]
        out[key] = objects(values)


def _extras(items: list[dict[str, Any]], unknown: list[str]) -> np.ndarray[Any, Any]:
    """json.dumps of each item's unknown signals, in the document's order (one layout)."""
    if not unknown:
        return objects([None] * len(items))
    if not items:
        return objects([])
    texts = []
    for key in unknown:
        values = _field(items, key)
        _types(values, int, float, _NONE)  # other values (text, lists, ...): row by row
        _finite(np.array([v for v in values if type(v) is float], dtype=np.float64))
        # json.dumps of a list of numbers and nulls: each element's own text, ", " between
        texts.append(json.dumps(values)[1:-1].split(", "))
    template = ", ".join(json.dumps(k).replace("{", "{{").replace("}", "}}") + ": {}" for k in unknown)
    return objects(list(map(("{{" + template + "}}").format, *texts)))


def fast_rows(rows: list[Any]) -> ExperimentRows | None:
    """The experiment's rows when every participant passes every check, else None."""
    try:
        return _rows(rows)
    except _Refused:
        return None


def _rows(rows: list[Any]) -> ExperimentRows:
    _types(rows, dict)
    pids = _field(rows, "participant_id")
    _types(pids, int)
    if len(set(pids)) != len(pids):
        raise _Refused
    try:
        pid_column = np.array(pids, dtype=np.int64)
    except OverflowError:
        raise _Refused from None
    success = _field(rows, "success")
    _types(success, bool)
    errors = _field(rows, "error")
    if not set(map(type, errors)) <= {str, _NONE}:
        errors = [e if e is None or isinstance(e, str) else json.dumps(e, default=repr) for e in errors]
    ok = list(compress(rows, success))
    preds, gts, sigs = (_field(ok, k) for k in ("predicted_items", "ground_truth_items", "item_signals"))
    _items_maps(preds)
    _items_maps(gts)
    has_sig = [s is not None for s in sigs]
    with_sig = list(compress(sigs, has_sig))
    _items_maps(with_sig)
    pred, pred_null = _scores(list(chain.from_iterable(map(_BY_ITEM, preds))), nullable=True)
    gt, _ = _scores(list(chain.from_iterable(map(_BY_ITEM, gts))), nullable=False)
    items = list(chain.from_iterable(map(_BY_ITEM, with_sig)))
    _types(items, dict)
    layouts = set(map(tuple, items))
    if len(layouts) > 1:
        raise _Refused
    layout = list(layouts.pop()) if layouts else []
    p, i, s = base_columns(pid_column, success, errors, has_sig, (pred, pred_null, gt), layout)
    s["extra_signals"] = _extras(items, [k for k in layout if k not in SIGNALS])
    for key, kind in SIGNALS.items():
        _signal(kind, key, _field(items, key), s)
    return ExperimentRows(p, i, s)
