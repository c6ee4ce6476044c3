"""A batch's columns as DuckDB reads them without the GIL where possible (store.py inserts
them; a decoding process (decoders.py) builds them, so this module imports no DuckDB).

DuckDB releases the GIL while it works, except where it reads a Python object, so the columns
it is handed hold no Python objects where that can be helped: text becomes codes into a list
passed as one parameter, equal-length lists of doubles one column per position.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain, repeat
from operator import is_
from typing import TYPE_CHECKING, Any

import numpy as np

from riskcov.formats.phq8_json.validate import FLOATS, SIGNALS

if TYPE_CHECKING:
    from riskcov.formats import Columns
    from riskcov.formats.phq8_json.columns import ExperimentRows


@dataclass
class Lean:
    """Columns for DuckDB and the SQL that rebuilds each original column from them."""

    columns: Columns
    # original column -> SQL over `columns`, and the parameters its `?` stand for
    select: dict[str, tuple[str, list[Any]]] = field(default_factory=dict)


@dataclass
class LeanRows:
    participants: Lean
    items: Lean
    signals: Lean


def lean(exp: ExperimentRows) -> LeanRows:
    """The rows of `exp` as columns DuckDB reads without the GIL where possible."""
    signals = dict(exp.signals)
    layout, layouts = _key_layouts(signals.pop("signal_keys"))
    s = _lean(signals, {"signal_keys": ("CAST(? AS VARCHAR[][])[layout + 1]", [layouts])})
    s.columns["layout"] = layout
    return LeanRows(_lean(exp.participants, {}), _lean(exp.items, {}), s)


def _lean(columns: Columns, given: dict[str, tuple[str, list[Any]]]) -> Lean:
    out = Lean({}, dict(given))
    for name, values in columns.items():
        if values.dtype != object:
            out.columns[name], out.select[name] = values, (name, [])
            continue
        coded = _codes(values)
        if coded is not None:
            out.columns[name] = coded[0]
            out.select[name] = (f"CAST(? AS VARCHAR[])[{name}]", [coded[1]])
            continue
        wide = _doubles(values) if SIGNALS.get(name) == FLOATS else None
        if wide is not None:
            out.select[name] = _wide(out.columns, name, *wide)
            continue
        out.columns[name], out.select[name] = values, (name, [])
    return out


def _codes(values: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], list[str]] | None:
    """Text (or null) values as 1-based codes into a list of the distinct texts (null: 0,
    which indexes nothing), or None when the values are not all text or null.

    >>> _codes(np.array(["b", None, "a", "b"], dtype=object))
    (array([1, 0, 2, 1], dtype=int32), ['b', 'a'])
    """
    try:
        distinct = dict.fromkeys(values.tolist())
    except TypeError:  # lists
        return None
    texts = [v for v in distinct if v is not None]
    if any(type(v) is not str for v in texts):
        return None
    code: dict[str | None, int] = {None: 0, **{v: i + 1 for i, v in enumerate(texts)}}
    return np.fromiter(map(code.__getitem__, values.tolist()), dtype=np.int32, count=len(values)), texts


def _doubles(
    values: np.ndarray[Any, Any],
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]] | None:
    """Lists of doubles or nulls, all of one length > 0, or null lists: (the doubles one row
    each, NaN where null; which elements are null; which lists are null); else None."""
    rows = values.tolist()
    given = [r for r in rows if r is not None]
    if not given or set(map(type, given)) != {list}:
        return None
    widths = set(map(len, given))
    width = widths.pop()
    if widths or width == 0:
        return None
    lists = np.fromiter(map(is_, rows, repeat(None)), dtype=bool, count=len(rows))
    if len(given) < len(rows):
        unread = [0.0] * width  # a null list's values
        rows = [unread if r is None else r for r in rows]
    flat = list(chain.from_iterable(rows))
    if not set(map(type, flat)) <= {float, type(None)}:
        return None
    # through an object array: numpy's cast of the objects (None: NaN, masked) and its test of
    # the NaNs for None run in C, not a Python loop over the elements
    objects = np.fromiter(flat, dtype=object, count=len(flat))
    doubles = objects.astype(np.float64)
    nulls = np.isnan(doubles)
    if nulls.any():  # of the NaNs, the Nones (a NaN given is a value)
        at = np.flatnonzero(nulls)
        nulls[at] = np.equal(objects[at], None)  # type: ignore[call-overload]
    return doubles.reshape(len(rows), width), nulls.reshape(len(rows), width), lists


def _wide(
    columns: Columns,
    name: str,
    doubles: np.ndarray[Any, Any],
    nulls: np.ndarray[Any, Any],
    lists: np.ndarray[Any, Any],
) -> tuple[str, list[Any]]:
    """The columns of a list column of `name` one per position (`_doubles`), and the SQL that
    rebuilds its lists; a null mask only where there are nulls."""
    parts = []
    for j in range(doubles.shape[1]):
        columns[f"{name}__{j}"] = doubles[:, j]
        part = f"{name}__{j}"
        if nulls[:, j].any():
            columns[f"{name}__{j}__null"] = nulls[:, j]
            part = f"CASE WHEN {name}__{j}__null THEN NULL ELSE {part} END"
        parts.append(part)
    sql = "CAST([" + ", ".join(parts) + "] AS DOUBLE[])"
    if lists.any():
        columns[f"{name}__null"] = lists
        sql = f"CASE WHEN {name}__null THEN NULL ELSE {sql} END"
    return sql, []


def _key_layouts(keys: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], list[list[str]]]:
    """Each item's position in its run's distinct signal-key lists, and those lists.

    DuckDB converting a Python list per item cost ~2 s of a 100,000-participant ingest (800k
    lists of 19 keys); the items of a run nearly always share one list (fast.py passes the same
    list object for all), which is then one parameter.

    >>> _key_layouts(np.array([["a"], ["a", "b"], ["a"], None], dtype=object)[:3])
    (array([0, 1, 0], dtype=int32), [['a'], ['a', 'b']])
    """
    ids = np.fromiter(map(id, keys), dtype=np.int64, count=len(keys))
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    index: dict[tuple[str, ...], int] = {}
    position = np.empty(len(first), dtype=np.int32)
    for u in np.argsort(first, kind="stable"):  # numbered in order of appearance, not of address
        position[u] = index.setdefault(tuple(keys[first[u]]), len(index))
    return position[inverse].reshape(-1), [list(k) for k in index]
