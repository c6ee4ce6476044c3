"""Cut a run JSON into its participant objects without parsing it in Python.

numpy finds the braces and brackets of the file and keeps the objects that open at nesting
depth 5 (`{experiments: [{results: {results: [ <here> ]}}]}`). The cut is a guess that is then
proven: the rest of the file, with every cut object replaced by its number (`skeleton`), must
parse with Python's json into experiments whose `results.results` hold exactly the numbers
0, 1, 2, ... in order, and every cut object must parse on its own as one complete object (the
SQL reader, `fast.py`). When both hold, the pieces and the skeleton are the document: a
complete JSON value put back in place of a number at a value position parses as itself. A
bracket inside a string can only spoil the guess, never the proof; the caller then falls back
to the Python reader.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

PARTICIPANT_DEPTH = 5
_CHUNK = 1 << 25
_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[list(b" \t\r\n")] = True


@dataclass(frozen=True)
class Split:
    """Byte offsets [start, end] (inclusive) of the participant objects, and the skeleton."""

    starts: np.ndarray[Any, Any]
    ends: np.ndarray[Any, Any]
    skeleton: bytes


def lax_literal(data: bytes) -> bool:
    """True when the text may hold a NaN/Infinity literal, which DuckDB's reader takes and
    Python's json refuses (also true for such text inside a string: the Python reader decides)."""
    return b"NaN" in data or b"Infinity" in data


def _unescaped(data: bytes, quotes: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The quotes that open or close a string (not preceded by an odd run of backslashes)."""
    after_backslash = quotes[(quotes > 0) & (np.frombuffer(data, np.uint8)[quotes - 1] == ord("\\"))]
    escaped = [q for q in after_backslash.tolist() if _run(data, q) % 2 == 1]
    return np.setdiff1d(quotes, np.array(escaped, dtype=quotes.dtype), assume_unique=True)


def _run(data: bytes, end: int) -> int:
    """How many backslashes come right before position `end`."""
    n = 0
    while end - n > 0 and data[end - n - 1] == 0x5C:
        n += 1
    return n


def _trailing_comma(arr: np.ndarray[Any, Any], closes: np.ndarray[Any, Any]) -> bool:
    """True when a `,` comes right before a `}` or `]` (whitespace between): DuckDB's reader
    takes such a trailing comma, Python's json refuses it."""
    at = closes - 1
    at = at[at >= 0]
    for _ in range(1 << 16):
        blank = _WHITESPACE[arr[at]]
        if not blank.any():
            break
        at[blank] -= 1
        at = at[at >= 0]
    return bool((arr[at] == ord(",")).any())


def split(data: bytes) -> Split | None:
    """The participant objects of the document, or None when no consistent cut is found."""
    arr = np.frombuffer(data, dtype=np.uint8)
    if len(arr) >= 1 << 32:
        return None
    opens_l, closes_l, quotes_l = [], [], []
    for s in range(0, len(arr), _CHUNK):
        chunk = arr[s : s + _CHUNK]
        x = chunk | 32  # "[" -> "{", "]" -> "}"
        opens_l.append((np.flatnonzero(x == ord("{")) + s).astype(np.uint32))
        closes_l.append((np.flatnonzero(x == ord("}")) + s).astype(np.uint32))
        quotes_l.append((np.flatnonzero(chunk == ord('"')) + s).astype(np.uint32))
    quotes = _unescaped(data, np.concatenate(quotes_l))
    # a bracket is structure when an even number of quotes comes before it
    opens, closes = (
        b[np.searchsorted(quotes, b) % 2 == 0] for b in (np.concatenate(opens_l), np.concatenate(closes_l))
    )
    if len(opens) != len(closes) or not len(opens) or _trailing_comma(arr, closes):
        return None
    depth_open = np.arange(len(opens)) - np.searchsorted(closes, opens)
    depth_close = np.searchsorted(opens, closes) - np.arange(len(closes)) - 1
    starts = opens[(depth_open == PARTICIPANT_DEPTH) & (arr[opens] == ord("{"))]
    level = closes[depth_close == PARTICIPANT_DEPTH]
    if not len(starts):
        return None
    at = np.searchsorted(level, starts)
    if at[-1] >= len(level):
        return None
    ends = level[at]
    if not (arr[ends] == ord("}")).all() or not (starts[1:] > ends[:-1]).all():
        return None
    parts: list[bytes | memoryview] = []
    view, prev = memoryview(data), 0
    for k, (a, b) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        parts += (view[prev:a], b" %d " % k)
        prev = b + 1
    parts.append(view[prev:])
    return Split(starts, ends, b"".join(parts))
