"""The msgspec structs a run file's participants are decoded into (typed.py): types and score
ranges checked while they parse. A participant's struct is made from the first participants of
its list (`probe`), so that other keys and the item signals' layout are fields of it."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import msgspec
import numpy as np

from riskcov.formats.phq8_json import validate as v
from riskcov.formats.phq8_json.validate import ITEMS, RANGES, SCORE_MAX, SCORE_MIN, SIGNALS

UNSET = msgspec.UNSET
_Score = Annotated[int, msgspec.Meta(ge=SCORE_MIN, le=SCORE_MAX)]
# item maps: each item may be missing (a failed participant's maps are not checked, often {});
# a successful participant's must have all eight
Pred = msgspec.defstruct("Pred", [(k, _Score | None, UNSET) for k in ITEMS], forbid_unknown_fields=True)
Truth = msgspec.defstruct("Truth", [(k, _Score, UNSET) for k in ITEMS], forbid_unknown_fields=True)
_KIND_TYPES: dict[str, Any] = {
    v.INT: int | None,
    v.FLOAT: float | None,  # msgspec refuses NaN, Infinity and literals beyond a double
    v.SOURCE: Literal["llm", "keyword", "both"] | None,
    v.FLOATS: list[float | None] | None,
    v.BOOL: bool | None,
    v.TEXT: str | None,
}
_EXTRA_TYPE = int | float | None  # unknown signals: numbers or null here, the rest row by row
_SCALAR = int | float | str | bool | None  # unknown participant fields (nested values: full checker)
KNOWN = ("participant_id", "success", "error", "predicted_items", "ground_truth_items", "item_signals")
_PROBE = 100  # participants whose keys name the participant struct's fields


class Refused(Exception):
    """Anything the fast path does not accept: the full checker decides."""


def probe(text: memoryview) -> bytes:
    """The list of the first _PROBE participants of the list `text`: what the participant
    struct is made from."""
    return bytes(text[: _probe_end(text)]) + b"]"


def participant_type(probe: bytes) -> tuple[type[msgspec.Struct], list[str]]:
    """The struct of a participant (fields: the known ones and any other key among the
    participants of `probe`, as scalars) and the signal keys of the first item with signals."""
    first = json.loads(probe)
    if not all(isinstance(r, dict) for r in first):
        raise Refused
    other = sorted({k for r in first for k in r} - set(KNOWN))
    layout: list[str] | None = None
    for r in first:
        sig = r.get("item_signals")
        if isinstance(sig, dict) and isinstance(sig.get(ITEMS[0]), dict):
            layout = list(sig[ITEMS[0]])
            break
    fields: list[tuple[str, Any, Any]] = [("participant_id", int, UNSET), ("success", bool, UNSET)]
    fields.append(("error", str | None, UNSET))
    fields += [("predicted_items", Pred | None, UNSET), ("ground_truth_items", Truth | None, UNSET)]
    if layout is not None:
        signal = msgspec.defstruct(
            "_Signals",
            [(k, _signal_type(k)) for k in layout],
            forbid_unknown_fields=True,
        )
        per_item = msgspec.defstruct(
            "_ItemSignals", [(k, signal, UNSET) for k in ITEMS], forbid_unknown_fields=True
        )
        fields.append(("item_signals", per_item | None, UNSET))
    else:
        fields.append(("item_signals", None, UNSET))
    fields += [(k, _SCALAR, UNSET) for k in other]
    return msgspec.defstruct("_Participant", fields, forbid_unknown_fields=True), layout or []


def _signal_type(key: str) -> Any:
    if key in RANGES:
        lo, hi = RANGES[key]
        return Annotated[float, msgspec.Meta(ge=lo, le=hi)] | None
    return _KIND_TYPES[SIGNALS[key]] if key in SIGNALS else _EXTRA_TYPE


def _probe_end(text: memoryview) -> int:
    """Where the first _PROBE participants of the list `text` end (before the ',' after them)."""
    decoded = msgspec.json.decode(text, type=list[msgspec.Raw])
    if not decoded:
        raise Refused  # an empty experiment: the full checker's message
    last = decoded[min(_PROBE, len(decoded)) - 1]
    base = np.frombuffer(text, dtype=np.uint8).ctypes.data
    return int(np.frombuffer(last, dtype=np.uint8).ctypes.data - base) + len(last)
