"""The columns fast.py stores for the item signals of participants msgspec decoded (typed.py):
the numeric signals as doubles one tuple per item, each signal's column and null mask, and the
unknown signals as JSON text."""

from __future__ import annotations

import json
from operator import attrgetter
from typing import Any

import numpy as np

from riskcov.formats import Columns
from riskcov.formats.phq8_json import validate as v
from riskcov.formats.phq8_json.columns import objects


def column(structs: list[Any], key: str) -> list[Any]:
    """Field `key` of each struct (msgspec.UNSET where absent)."""
    return list(map(attrgetter(key), structs))


def numbers(items: list[Any], keys: list[str]) -> np.ndarray[Any, Any]:
    """The numeric signals `keys` of every item as doubles, one column each (null: NaN, which
    msgspec never decodes from a number): one tuple per item, not one pass per signal."""
    if not keys:
        return np.empty((len(items), 0))
    rows = list(map(attrgetter(*keys), items))
    return np.array(rows, dtype=np.float64).reshape(len(items), len(keys))


def number_column(kind: str, key: str, wide: np.ndarray[Any, Any], items: list[Any], out: Columns) -> None:
    """fast.py's column of one numeric signal and its null mask, from its doubles; an integer
    signal beyond 2**53 (not exact as a double) is converted from the values themselves."""
    nulls = np.isnan(wide)
    dtype = {v.INT: np.int64, v.FLOAT: np.float64, v.BOOL: np.bool_}[kind]
    if kind != v.INT or not (np.abs(wide[~nulls]) >= 2.0**53).any():
        values = wide.copy()
        values[nulls] = 0
        out[key], out[key + "__null"] = values.astype(dtype), nulls
        return
    exact = np.array(column(items, key), dtype=object)
    exact[nulls] = 0
    out[key], out[key + "__null"] = exact.astype(dtype), nulls


def extras(items: list[Any], unknown: list[str]) -> np.ndarray[Any, Any]:
    """json.dumps of each item's unknown signals (numbers or null), in the layout's order: the
    items share few combinations of values, so each distinct one is written once (and is one
    text object, which lean.py's codes then look up once)."""
    if not unknown or not items:
        return objects([None] * len(items))
    texts = [json.dumps(column(items, key))[1:-1].split(", ") for key in unknown]
    template = ", ".join(json.dumps(k).replace("{", "{{").replace("}", "}}") + ": {}" for k in unknown)
    write = ("{{" + template + "}}").format
    combinations = list(zip(*texts, strict=True))
    written = dict.fromkeys(combinations, "")
    for values in written:
        written[values] = write(*values)
    return objects(list(map(written.__getitem__, combinations)))
