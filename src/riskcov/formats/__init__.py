"""Input formats: each module turns one kind of run file into `ParsedRun` columns.

A new format (per-sample classification runs, other questionnaires) is a new module with a
`parse(path, data) -> ParsedRun` function, registered in `FORMATS`; ingest does not change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

Columns = dict[str, np.ndarray[Any, Any]]


@dataclass
class ParsedExperiment:
    """One experiment's rows, column by column, ready for a DuckDB scan."""

    index: int
    mode: str | None
    provenance_json: str | None
    item_names: list[str]
    score_min: int
    score_max: int
    participants: Columns
    items: Columns
    signals: Columns


@dataclass
class ParsedRun:
    """A validated run file."""

    run_id: str
    git_commit: str | None
    timestamp: str | None
    metadata_json: str
    input_format: str
    experiments: list[ParsedExperiment] = field(default_factory=list)


Parser = Callable[[Path, bytes], ParsedRun]


def get_parser(name: str) -> Parser:
    """The parser of a format by name (only `phq8-run-json` so far)."""
    from riskcov.formats import run_json

    formats: dict[str, Parser] = {run_json.FORMAT_NAME: run_json.parse}
    return formats[name]
