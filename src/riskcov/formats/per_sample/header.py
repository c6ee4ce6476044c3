"""The checked header of a per-sample table (docs/formats.md): which column is the sample id, which
are scores (confidence, confidence_<name>), which gives the loss, and which are attributes; a
name that looks like a misspelt known column is refused rather than taken for an attribute.
What each column must hold is checked per value by the SQL of column_checks.py."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from riskcov.errors import InputError
from riskcov.formats.per_sample.column_checks import Source

OPTIONAL = (
    "loss",
    "correct",
    "label",
    "prediction",
    "prob",
    "abstained",
    "method",
    "seed",
    "split",
    "domain",
    "cluster",
)
KNOWN = "sample_id, confidence, confidence_<name>, " + ", ".join(OPTIONAL)
# a column this close to a known name is taken for a misspelling of it, not for an attribute
_MISSPELT = 0.8
_CSF_NAME = re.compile(r"[a-z0-9_]+")
# staging a table costs time and memory that grow faster than its columns (DuckDB's statements
# over it, one expression per column), so a wider table is refused before it is read
MAX_COLUMNS = 1_000


def too_wide(columns: int) -> str | None:
    """The refusal of a table of more than MAX_COLUMNS columns (docs/formats.md), else None."""
    if columns <= MAX_COLUMNS:
        return None
    return f"{columns:,} columns; a per-sample table takes at most {MAX_COLUMNS:,} (docs/formats.md)"


@dataclass(frozen=True)
class Plan:
    """The checked header: the columns in file order, the CSFs (sorted), the loss source, the
    attributes (every other column, in file order: docs/formats.md)."""

    order: tuple[Source, ...]
    csfs: dict[str, Source]
    loss_source: str  # "loss" | "correct" | "label_prediction"
    attributes: tuple[Source, ...] = ()

    def get(self, name: str) -> Source | None:
        return next((s for s in self.order if s.name == name), None)


def _shown(name: str) -> str:
    return name if name.isprintable() else repr(name)


def _misspelt(name: str) -> str | None:
    """The known column `name` looks like a misspelling of, if any.

    >>> _misspelt("confidnce"), _misspelt("Label"), _misspelt("site"), _misspelt("confidence_x")
    ('confidence', 'label', None, None)
    """
    known = ["sample_id", "confidence", *OPTIONAL]
    if name in known or name.startswith("confidence_"):
        return None
    found = difflib.get_close_matches(name.lower(), known, n=1, cutoff=_MISSPELT)
    return found[0] if found else None


def plan_columns(path: Path, sources: list[Source]) -> Plan:
    """Check the header: names unique, a sample_id, a score, exactly one loss; any other column
    is an attribute, unless its name looks like a misspelt known one.

    >>> from riskcov.formats.per_sample.column_checks import TEXT
    >>> plan_columns(Path("x.csv"), [Source("sample_id", "c0", TEXT)])
    Traceback (most recent call last):
    riskcov.errors.InputError: x.csv: no score column: give confidence or confidence_<name>
    """
    wide = too_wide(len(sources))
    if wide is not None:
        raise InputError(f"{path}: {wide}")
    seen: set[str] = set()
    csfs: dict[str, Source] = {}
    attributes: list[Source] = []
    for i, s in enumerate(sources):
        if s.name == "":
            raise InputError(f"{path}: column {i + 1} has no name")
        if s.name in seen:
            raise InputError(f"{path}: column {_shown(s.name)} appears twice")
        seen.add(s.name)
        if s.name == "confidence" or s.name.startswith("confidence_"):
            csf = "confidence" if s.name == "confidence" else s.name.removeprefix("confidence_")
            if not _CSF_NAME.fullmatch(csf):
                raise InputError(
                    f'{path}: column {_shown(s.name)}: the CSF name "{_shown(csf)}" is not '
                    "lower-case letters, digits and _"
                )
            if csf in csfs:
                raise InputError(f"{path}: columns {csfs[csf].name} and {s.name} both give CSF {csf}")
            csfs[csf] = s
        elif s.name != "sample_id" and s.name not in OPTIONAL:
            close = _misspelt(s.name)
            if close is not None:
                raise InputError(
                    f"{path}: column {_shown(s.name)}: unknown column, close to {close}; "
                    f"rename it if it is an attribute (known: {KNOWN})"
                )
            attributes.append(s)
    if "sample_id" not in seen:
        raise InputError(f"{path}: no sample_id column")
    if not csfs:
        raise InputError(f"{path}: no score column: give confidence or confidence_<name>")
    for a, b in (("label", "prediction"), ("prediction", "label")):
        if a in seen and b not in seen:
            raise InputError(f"{path}: column {a} without column {b}")
    if "loss" in seen and "correct" in seen:
        raise InputError(f"{path}: columns loss and correct both give the loss; keep one")
    source = next((k for k in ("loss", "correct", "label") if k in seen), None)
    if source is None:
        raise InputError(f"{path}: no loss column: give loss, correct, or label and prediction")
    return Plan(
        order=tuple(sources),
        csfs=dict(sorted(csfs.items())),
        loss_source="label_prediction" if source == "label" else source,
        attributes=tuple(attributes),
    )
