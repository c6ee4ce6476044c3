"""The participants of a run file decoded by msgspec into typed structs, which check types and
score ranges while they parse, and turned into the columns of fast.py / columns.to_columns.

An all-or-nothing fast path: `typed_rows` returns None whenever anything is off or unusual
(a failed check, a shape the structs do not describe, a backslash escape among the
participants, a key that may appear twice), and the caller then runs the full checker on the
whole document, which names the first problem in file order. So a message never comes from
here, and whatever this accepts, the full checker accepts with the same columns (a test
compares them).

msgspec keeps the last value of a repeated key silently, so repeated keys are ruled out by
counting: in JSON text without backslash escapes every ':' byte either separates a key from its
value or lies inside a string, so the number of ':' bytes in the participants' text must equal
the number of keys the structs decoded plus the ':' inside the decoded strings; a repeated key
adds one. The rest of the document (metadata, provenance, ...) is small: the caller loads it
with the full checker as a skeleton, each experiment's participant list replaced by [].

A large list is decoded in batches of about BATCH_BYTES (`Participants.batches`), so that a
batch can be stored while the next is decoded. The batches are cut where the text reads
`}, {"participant_id":` (any whitespace): without backslash escapes that cannot lie inside a
string, and a cut anywhere but between two participants leaves a batch that is not a list of
participants, which the decoder refuses. Participant ids are checked unique across batches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import chain, compress, repeat
from operator import attrgetter, is_, is_not
from typing import Any

import msgspec
import numpy as np

from riskcov.formats.phq8_json import validate as v
from riskcov.formats.phq8_json.columns import ExperimentRows, base_columns, objects
from riskcov.formats.phq8_json.signal_columns import column, extras, number_column, numbers
from riskcov.formats.phq8_json.structs import KNOWN, UNSET, Pred, Truth, participant_type, probe
from riskcov.formats.phq8_json.structs import Refused as Refused  # the decoders' callers catch it here
from riskcov.formats.phq8_json.validate import ITEMS, SIGNALS

_BY_ITEM = attrgetter(*ITEMS)
_NUMERIC = (v.INT, v.FLOAT, v.BOOL)
# participants' text decoded at a time when a run is stored batch by batch (parse.py)
BATCH_BYTES = 32 * 2**20
_BETWEEN = re.compile(rb'\}\s*,\s*\{\s*"participant_id"\s*:')


# what the fast path's decode raises when it does not accept its input
FAILED = (Refused, msgspec.MsgspecError, OverflowError, ValueError, TypeError, KeyError, RecursionError)


@dataclass(frozen=True)
class TypedRun:
    """The document with every experiment's participant list replaced by [], and each
    experiment's columns (in experiment order)."""

    skeleton: bytes
    rows: list[ExperimentRows]


@dataclass
class Participants:
    """One experiment's participant list, the text data[start:end] (with its brackets)."""

    data: bytes
    start: int
    end: int
    counts: list[int] = field(default_factory=lambda: [0, 0])  # participants, items decoded

    @property
    def size(self) -> int:
        return self.end - self.start

    def batches(self, size: int | None = None) -> Iterator[ExperimentRows]:
        """The participants' columns, a batch of about `size` (BATCH_BYTES) bytes of text at a
        time, in order; Refused (from any batch) when the fast path does not accept them all."""
        try:
            yield from self._batches(BATCH_BYTES if size is None else size)
        except FAILED as exc:
            raise Refused from exc

    def spans(self, size: int) -> Iterator[tuple[int, int]]:
        """Where each batch of about `size` bytes lies: data[a:b], whole participants separated
        by commas (the list's brackets excluded), in order."""
        data, inner_end = self.data, self.end - 1
        at = self.start + 1
        while True:
            cut = _BETWEEN.search(data, at + size, inner_end) if at + size < inner_end else None
            yield at, cut.start() + 1 if cut else inner_end
            if cut is None:
                return
            at = data.index(b",", cut.start()) + 1

    def count(self, participants: int, items: int) -> None:
        """Add a decoded batch's participants and items."""
        self.counts[0] += participants
        self.counts[1] += items

    def _batches(self, size: int) -> Iterator[ExperimentRows]:
        seen, shape = set[int](), None
        for at, end in self.spans(size):
            if at == self.start + 1 and end == self.end - 1:  # the whole list: no copy
                text, start, stop = self.data, self.start, self.end
            else:
                text = b"[" + self.data[at:end] + b"]"
                start, stop = 0, len(text)
            if shape is None:
                shape = participant_type(probe(memoryview(text)[start:stop]))
            rows = experiment_rows(text, start, stop, shape, seen)
            self.count(len(rows.participants["participant_id"]), len(rows.items["participant_id"]))
            yield rows


def typed_plan(data: bytes) -> tuple[bytes, list[Participants]] | None:
    """The skeleton of the document and each experiment's participant list, not decoded yet;
    None when the document's top levels are not as the fast path needs them."""
    try:
        return _plan(data)
    except FAILED:
        return None


def typed_rows(data: bytes) -> TypedRun | None:
    """The run's participants as columns when the fast path accepts them all, else None."""
    plan = typed_plan(data)
    if plan is None:
        return None
    try:
        return TypedRun(plan[0], [one for p in plan[1] for one in p.batches(size=len(data))])
    except Refused:
        return None


class _Results(msgspec.Struct):
    results: msgspec.Raw


class _Experiment(msgspec.Struct):
    results: _Results


class _Document(msgspec.Struct):
    """Where each experiment's participant list lies (other keys are skipped; one pass)."""

    experiments: list[_Experiment]


def _plan(data: bytes) -> tuple[bytes, list[Participants]]:
    experiments = msgspec.json.decode(data, type=_Document).experiments
    base = np.frombuffer(data, dtype=np.uint8).ctypes.data
    pieces, lists, at = [], [], 0
    for exp in experiments:
        participants = exp.results.results
        start = np.frombuffer(participants, dtype=np.uint8).ctypes.data - base
        end = start + len(participants)
        if not at <= start < end <= len(data) or data[start : start + 1] != b"[":
            raise Refused  # not a view into `data` (cannot happen with bytes input; be sure)
        lists.append(Participants(data, start, end))
        pieces += [data[at:start], b"[]"]
        at = end
    pieces.append(data[at:])
    return b"".join(pieces), lists


def _colons(texts: list[str | None]) -> int:
    """The ':' in these texts (None: none), counted over their concatenation.

    >>> _colons(["a:b", None, "", "::"])
    3
    """
    return "".join(filter(None, texts)).count(":")


def _set(values: list[Any]) -> np.ndarray[Any, Any]:
    return np.fromiter(map(is_not, values, repeat(UNSET)), dtype=bool, count=len(values))


def experiment_rows(
    data: bytes, start: int, end: int, shape: tuple[type[msgspec.Struct], list[str]], seen: set[int]
) -> ExperimentRows:
    """The columns of the participant list data[start:end]; `seen`: the ids of the batches
    before (updated)."""
    if data.find(b"\\", start, end) != -1:
        raise Refused  # escapes: the ':' count below would not hold
    participant, layout = shape
    parts = msgspec.json.decode(memoryview(data)[start:end], type=list[participant])  # type: ignore[valid-type]
    keys, colons = 0, 0  # keys decoded; ':' inside decoded strings (keys and values)
    for f in participant.__struct_fields__:
        present = int(_set(column(parts, f)).sum())
        keys += present
        colons += present * f.count(":")
        if f not in KNOWN[:2] and f not in KNOWN[3:]:  # error and the other scalars: text
            colons += _colons([v for v in column(parts, f) if type(v) is str])
    pids = column(parts, "participant_id")
    if UNSET in pids or len(set(pids)) != len(pids) or not seen.isdisjoint(pids):
        raise Refused
    seen.update(pids)
    pid_column = np.array(pids, dtype=np.int64)  # OverflowError beyond 64 bits
    success = column(parts, "success")
    if UNSET in success:
        raise Refused
    errors = [None if e is UNSET else e for e in column(parts, "error")]
    ok = list(compress(parts, success))
    preds, truths = column(ok, "predicted_items"), column(ok, "ground_truth_items")
    if {type(p) for p in preds} - {Pred} or {type(t) for t in truths} - {Truth}:
        raise Refused  # a successful participant without both maps
    sigs = column(ok, "item_signals")
    has_sig = [s is not None and s is not UNSET for s in sigs]
    with_sig = list(compress(sigs, has_sig))
    # the item maps' keys: all eight in a successful participant's maps (checked below), any
    # number in a failed one's (decoded, not stored); the item names hold no ':'
    failed = list(compress(parts, [not s for s in success]))
    maps = [m for f in KNOWN[3:] for m in column(failed, f) if m is not None and m is not UNSET]
    given = [g for g in chain.from_iterable(map(_BY_ITEM, maps)) if g is not UNSET]
    keys += len(given) + len(ITEMS) * (len(preds) + len(truths) + len(with_sig))
    n_signals = len(ITEMS) * len(with_sig) + sum(type(g) is not int and g is not None for g in given)
    keys += n_signals * len(layout)
    colons += n_signals * sum(k.count(":") for k in layout)
    pred_values = list(chain.from_iterable(map(_BY_ITEM, preds)))
    if UNSET in pred_values:
        raise Refused  # a successful participant's map without every item
    nulls = np.fromiter(map(is_, pred_values, repeat(None)), dtype=bool, count=len(pred_values))
    pred = np.array([0 if v is None else v for v in pred_values], dtype=np.int16)
    gt_values = list(chain.from_iterable(map(_BY_ITEM, truths)))
    if UNSET in gt_values:
        raise Refused
    gt = np.array(gt_values, dtype=np.int16)
    items = list(chain.from_iterable(map(_BY_ITEM, with_sig)))
    if UNSET in items:
        raise Refused
    p, i, s = base_columns(pid_column, success, errors, has_sig, (pred, nulls, gt), layout)
    s["extra_signals"] = extras(items, [k for k in layout if k not in SIGNALS])
    numeric = [k for k, kind in SIGNALS.items() if kind in _NUMERIC and k in layout]
    table = numbers(items, numeric)
    for key, kind in SIGNALS.items():
        if kind in _NUMERIC:
            wide = table[:, numeric.index(key)] if key in numeric else np.full(len(items), np.nan)
            number_column(kind, key, wide, items, s)
            continue
        values = column(items, key) if key in layout else [None] * len(items)
        if kind == v.TEXT:
            colons += _colons(values)
        s[key] = objects(values)  # text, source, lists of floats (ints already floats)
    if data.count(b":", start, end) != keys + colons:
        raise Refused  # a key given twice somewhere (msgspec kept the last value)
    return ExperimentRows(p, i, s)
