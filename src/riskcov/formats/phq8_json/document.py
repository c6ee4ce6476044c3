"""A run JSON document loaded strictly: json.loads refusing repeated keys (with where the
first is) and noting NaN/Infinity literals; a message for every way the text is not JSON."""

from __future__ import annotations

import contextlib
import gc
import json
import json.decoder
import json.scanner
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from riskcov.errors import InputError
from riskcov.formats.phq8_json.validate import NonFinite


class DuplicateKey(ValueError):
    """A JSON object names a key twice (json.loads would keep the last value silently)."""

    def __init__(self, key: str, offset: int = -1) -> None:
        super().__init__(key)
        self.key, self.offset = key, offset


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise DuplicateKey(k)
            seen.add(k)
    return out


class _Locating(json.JSONDecoder):
    """The pure-Python decoder, which knows where each object starts: run again on a document
    with a repeated key, to say where it is."""

    def __init__(self) -> None:
        super().__init__()
        self.parse_object = self._object
        self.scan_once = json.scanner.py_make_scanner(self)  # type: ignore[attr-defined]

    @staticmethod
    def _object(s_and_end: tuple[str, int], *args: Any, **kwargs: Any) -> tuple[dict[str, Any], int]:
        pairs, end = json.decoder.JSONObject(s_and_end, args[0], args[1], None, list, *args[4:])  # type: ignore[attr-defined]
        keys = [k for k, _ in pairs]
        for i, k in enumerate(keys):
            if k in keys[:i]:
                raise DuplicateKey(k, s_and_end[1] - 1)
        return dict(pairs), end


def _locate_duplicate(data: bytes, key: str) -> str:
    """Where the first object with a repeated key starts, as one line of the message."""
    text = data.decode("utf-8-sig", errors="replace")
    try:
        _Locating().decode(text)
    except DuplicateKey as dup:
        line = text.count("\n", 0, dup.offset) + 1
        col = dup.offset - text.rfind("\n", 0, dup.offset)
        return (
            f'key "{dup.key}" appears twice in the object at line {line} column {col}; '
            "each key may appear once"
        )
    except (ValueError, RecursionError):
        pass
    return f'key "{key}" appears twice in one object; each key may appear once'


def load(path: Path, data: bytes) -> tuple[Any, bool]:
    """The document, and whether it holds a NaN/Infinity literal anywhere."""
    seen: list[NonFinite] = []

    def constant(text: str) -> NonFinite:
        seen.append(NonFinite(text))
        return seen[-1]

    try:
        return json.loads(data, parse_constant=constant, object_pairs_hook=_unique_keys), bool(seen)
    except DuplicateKey as dup:
        raise InputError(f"{path}: {_locate_duplicate(data, dup.key)}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        if _truncated(data):
            raise InputError(
                f"{path}: truncated JSON: the file ends inside an open object, list or string"
            ) from None
        raise InputError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InputError(f"{path}: invalid JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer literal longer than Python's digit limit
        raise InputError(f"{path}: invalid JSON: {str(exc).splitlines()[0]}") from None


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic collector off while a document is loaded and checked: json.loads of a large
    run makes millions of containers, and every collection walks them all again (see
    benchmarks/NOTES.md). Nothing here makes reference cycles."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
