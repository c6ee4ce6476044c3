"""Validated participants, items and signals of one experiment, grown row by row and handed
to DuckDB as typed numpy columns (with null masks where numpy has no NULL)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from riskcov.formats import Columns
from riskcov.formats.phq8_json.validate import (
    BOOL,
    FLOAT,
    INT,
    INT64_MAX,
    INT64_MIN,
    ITEMS,
    MAX_DOUBLE,
    RANGES,
    SCORE_MAX,
    SCORE_MIN,
    SIGNALS,
    FieldError,
    check_finite,
    finite,
    in_range,
    items_map,
    score,
    show,
    signal,
)


class ExperimentColumns:
    """Growing column lists for one experiment."""

    def __init__(self) -> None:
        self.p: dict[str, list[Any]] = {k: [] for k in ("pid", "success", "error", "has_sig")}
        self.i: dict[str, list[Any]] = {k: [] for k in ("pid", "idx", "name", "pred", "gt")}
        self.s: dict[str, list[Any]] = {k: [] for k in ("pid", "idx", "keys", "extra", *SIGNALS)}


def add_participant(r: dict[str, Any], pid: int, cols: ExperimentColumns) -> None:
    success = r.get("success")
    if not isinstance(success, bool):
        raise FieldError(f"success = {show(success) if 'success' in r else 'missing'} is not true or false")
    error = r.get("error")
    if error is not None and not isinstance(error, str):
        error = json.dumps(error, default=repr)
    cols.p["pid"].append(pid)
    cols.p["success"].append(success)
    cols.p["error"].append(error)
    if not success:
        cols.p["has_sig"].append(False)
        return
    preds = items_map(r, "predicted_items")
    gts = items_map(r, "ground_truth_items")
    sigs = r.get("item_signals")
    if sigs is not None:
        sigs = items_map(r, "item_signals")
    cols.p["has_sig"].append(sigs is not None)
    ic, sc = cols.i, cols.s
    float_columns = [(k, sc[k]) for k, kind in SIGNALS.items() if kind == FLOAT]
    int_columns = [(k, sc[k]) for k, kind in SIGNALS.items() if kind == INT]
    other_columns = [(k, kind, sc[k]) for k, kind in SIGNALS.items() if kind not in (FLOAT, INT)]
    for idx, name in enumerate(ITEMS):
        pv, gv = preds[name], gts[name]
        pred = (
            pv
            if (type(pv) is int and SCORE_MIN <= pv <= SCORE_MAX)
            else score(finite(pv, f"predicted_items.{name}"), f"predicted_items.{name}", True)
        )
        gt = (
            gv
            if (type(gv) is int and SCORE_MIN <= gv <= SCORE_MAX)
            else score(finite(gv, f"ground_truth_items.{name}"), f"ground_truth_items.{name}", False)
        )
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
            raise FieldError(f"{field} = {show(item_sig)} is not an object")
        extra: dict[str, Any] = {}
        unknown = item_sig.keys() - SIGNALS.keys()
        if unknown:
            for key, value in item_sig.items():  # in the document's order
                if key in unknown:
                    check_finite(value, f"{field}.{key}")
                    extra[key] = value
        # fast paths for the common well-typed values (and nulls); the rest is checked in full
        for key, column in float_columns:
            v = item_sig.get(key)
            if v is None or (type(v) is float and -MAX_DOUBLE <= v <= MAX_DOUBLE):
                column.append(v)
            else:
                column.append(signal(FLOAT, v, f"{field}.{key}"))
        for key, column in int_columns:
            v = item_sig.get(key)
            if v is None or (type(v) is int and INT64_MIN <= v <= INT64_MAX):
                column.append(v)
            else:
                column.append(signal(INT, v, f"{field}.{key}"))
        for key, kind, column in other_columns:
            column.append(signal(kind, item_sig.get(key), f"{field}.{key}"))
        for key in RANGES:
            in_range(key, item_sig.get(key), f"{field}.{key}")
        sc["pid"].append(pid)
        sc["idx"].append(idx)
        sc["keys"].append(list(item_sig))
        sc["extra"].append(json.dumps(extra) if extra else None)


def nullable(values: list[Any], dtype: str) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """A typed array and its null mask (DuckDB reads NaN in a float array as NaN, not NULL)."""
    nulls = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
    filled = [0 if v is None else v for v in values]
    return np.array(filled, dtype=dtype), nulls


@dataclass(frozen=True)
class ExperimentRows:
    """One experiment's rows of `participants`, `items` and `item_signals`, column by column."""

    participants: Columns
    items: Columns
    signals: Columns


def to_columns(cols: ExperimentColumns) -> ExperimentRows:
    obj = objects
    p: Columns = {
        "participant_id": np.array(cols.p["pid"], dtype=np.int64),
        "success": np.array(cols.p["success"], dtype=bool),
        "error": obj(cols.p["error"]),
        "has_signals": np.array(cols.p["has_sig"], dtype=bool),
    }
    pred, pred_null = nullable(cols.i["pred"], "int16")
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
            s[key], s[key + "__null"] = nullable(cols.s[key], dtype)
        else:
            s[key] = obj(cols.s[key])
    return ExperimentRows(p, i, s)


def base_columns(
    pids: np.ndarray[Any, Any],
    success: list[bool],
    errors: list[str | None],
    has_sig: list[bool],
    scores: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]],
    layout: list[str],
) -> tuple[Columns, Columns, Columns]:
    """The participant and item columns, and the signals' key columns, of an experiment whose
    successful participants all have their eight items (and `has_sig` of them, signals with
    one key `layout`); `scores`: pred, its null mask and gt of those items in order."""
    n_items = len(ITEMS)
    p: Columns = {
        "participant_id": pids,
        "success": np.array(success, dtype=bool),
        "error": objects(errors),
        "has_signals": np.zeros(len(pids), dtype=bool),
    }
    p["has_signals"][p["success"]] = has_sig
    ok_pids = pids[p["success"]]
    i: Columns = {
        "participant_id": np.repeat(ok_pids, n_items),
        "item_index": np.tile(np.arange(n_items, dtype=np.int16), len(ok_pids)),
        "item_name": objects(ITEMS * len(ok_pids)),
        "pred": scores[0],
        "pred_null": scores[1],
        "gt": scores[2],
    }
    n_with = sum(has_sig)
    s: Columns = {
        "participant_id": np.repeat(ok_pids[np.array(has_sig, dtype=bool)], n_items),
        "item_index": np.tile(np.arange(n_items, dtype=np.int16), n_with),
        "signal_keys": objects([layout] * (n_with * n_items)),  # one list: store.py's layouts
    }
    return p, i, s


def objects(values: list[Any]) -> np.ndarray[Any, Any]:
    """A 1-D object array of `values`, each element the object itself (lists included, which
    np.array would look into for a second dimension, item by item).

    >>> keys = ["a", "b"]
    >>> out = objects([keys, None, keys])
    >>> out.shape, out[0] is keys, out[1]
    ((3,), True, None)
    """
    return np.fromiter(values, dtype=object, count=len(values))
