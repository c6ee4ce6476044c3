"""The PHQ-8 run JSON of docs/formats.md: load the document strictly, walk its experiments, and name
the file, experiment, participant and field of the first problem."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from riskcov.errors import InputError
from riskcov.formats import ExperimentRecord, IngestOptions, ParsedRun
from riskcov.formats.phq8_json import batched, typed
from riskcov.formats.phq8_json.columns import ExperimentColumns, ExperimentRows, add_participant, to_columns
from riskcov.formats.phq8_json.document import gc_paused, load
from riskcov.formats.phq8_json.fast import fast_rows
from riskcov.formats.phq8_json.typed import Refused, typed_plan
from riskcov.formats.phq8_json.validate import (
    FORMAT_NAME,
    ITEMS,
    SCORE_MAX,
    SCORE_MIN,
    FieldError,
    NonFinite,
    check_finite,
    participant_id_of,
    show,
)

if TYPE_CHECKING:  # a decoding process imports this package: neither DuckDB nor the store
    import duckdb

# the progress at which a stage ends: rough shares of a file's ingest time (parsing, then
# validating and building columns, then storing; benchmarks/ingest_stages.py measures them);
# storing ends when ingest_file returns
PARSED, VALIDATED = 0.25, 0.75
_EVERY = 500  # participants between progress reports


def _experiment(
    exp: Any,
    index: int,
    report: Callable[[int], None] | None = None,
    fast: bool = True,
    typed: ExperimentRows | None = None,
) -> tuple[ExperimentRecord, ExperimentRows]:
    if not isinstance(exp, dict):
        raise FieldError(f"is {show(exp)}, not an object")
    prov = exp.get("provenance")
    res = exp.get("results")
    if not isinstance(res, dict):
        raise FieldError(f"results is {'missing' if res is None else show(res)}, not an object")
    rows = res.get("results")
    if not isinstance(rows, list):
        raise FieldError(f"results.results is {'missing' if rows is None else show(rows)}, not a list")
    if not rows and typed is None:
        raise FieldError("results.results is empty; an experiment needs at least one participant")
    mode = _mode(exp)
    if report is not None:
        report(0)
    # decoded typed, or column-wise when every check passes; else row by row, which names the
    # first problem
    done = typed or (fast_rows(rows) if fast else None)
    if done is None:
        done = _row_by_row(rows, report)
    if prov is not None:
        check_finite(prov, "provenance")
    if report is not None:
        report(len(done.participants["participant_id"]))
    record = ExperimentRecord(
        index=index,
        loss_kind="abs_error",
        mode=mode,
        provenance_json=json.dumps(prov) if prov is not None else None,
        item_names=list(ITEMS),
        score_min=SCORE_MIN,
        score_max=SCORE_MAX,
    )
    return record, done


def _row_by_row(rows: list[Any], report: Callable[[int], None] | None) -> ExperimentRows:
    cols = ExperimentColumns()
    seen: set[int] = set()
    for pos, r in enumerate(rows):
        if report is not None and pos and pos % _EVERY == 0:
            report(pos)
        if not isinstance(r, dict):
            raise FieldError(f"results.results[{pos}] is {show(r)}, not an object")
        try:
            pid = participant_id_of(r)
        except FieldError as bad:
            raise FieldError(f"results.results[{pos}]: {bad}") from None
        try:
            if pid in seen:
                raise FieldError("participant_id is duplicated in this experiment")
            seen.add(pid)
            add_participant(r, pid, cols)
        except FieldError as bad:
            raise FieldError(f"participant {pid}: {bad}") from None
    return to_columns(cols)


def _mode(exp: dict[str, Any]) -> str | None:
    prov, res = exp.get("provenance"), exp.get("results")
    for source in (prov, res):
        if isinstance(source, dict) and isinstance(source.get("mode"), str):
            return str(source["mode"])
    return None


def parse(
    con: duckdb.DuckDBPyConnection | None, path: Path, data: bytes, options: IngestOptions | None = None
) -> ParsedRun:
    """Validate a run file and return its rows; InputError names file, experiment, participant, field."""
    with gc_paused():
        return _parse(path, data, options)


def _parse(path: Path, data: bytes, options: IngestOptions | None) -> ParsedRun:
    given = [
        f for f in ("run_id", "method", "seed", "split", "domain") if getattr(options, f, None) is not None
    ]
    if given:
        flags = ", ".join("--" + f.replace("_", "-") for f in given)
        raise InputError(
            f"{path}: {flags} apply to per-sample tables (.csv, .parquet, .jsonl), not to run JSON"
        )
    progress = options.progress if options is not None else None
    if progress is not None:
        progress(0.0, "parsing JSON")
    plan = typed_plan(data)
    if plan is not None:
        skeleton, lists = plan
        try:
            if sum(p.size for p in lists) > typed.BATCH_BYTES:  # decoded in batches while stored
                run = _parse_doc(path, skeleton, progress, [batched.PENDING] * len(lists))
                return batched.parsed_run(path, run, lists, lambda whole: _parse_doc(path, whole, None, None))
            rows = [r for p in lists for r in p.batches(size=len(data))]
            return _parse_doc(path, skeleton, progress, rows)
        except (InputError, Refused):
            pass  # the full checker names the problem in the file as given
    return _parse_doc(path, data, progress, None)


def _parse_doc(
    path: Path,
    data: bytes,
    progress: Callable[[float, str], None] | None,
    typed: list[ExperimentRows] | None,
) -> ParsedRun:
    """The run in `data`; `typed`: each experiment's columns, decoded already (`data` then
    holds the rest of the file, each participant list replaced by [])."""
    doc, non_finite = load(path, data)
    if not isinstance(doc, dict):
        raise InputError(f"{path}: the top level is {show(doc)}, not an object")
    meta = doc.get("run_metadata")
    if not isinstance(meta, dict):
        raise InputError(f"{path}: run_metadata is missing or not an object")
    run_id = meta.get("run_id")
    if not isinstance(run_id, str) or not run_id:
        raise InputError(f"{path}: run_metadata.run_id = {show(run_id)} is not a non-empty string")
    try:
        check_finite(meta, "run_metadata")
    except FieldError as bad:
        raise InputError(f"{path}: {bad}") from None
    experiments = doc.get("experiments")
    if not isinstance(experiments, list) or not experiments:
        what = "missing" if experiments is None else "empty" if experiments == [] else show(experiments)
        raise InputError(f"{path}: experiments is {what}; at least one experiment is required")
    modes = [_mode(e) if isinstance(e, dict) else None for e in experiments]
    if typed is not None and len(typed) != len(experiments):
        raise InputError(f"{path}: experiments changed between the two readings")
    report = _reporter(progress, experiments, typed)
    parsed = []
    for index, exp in enumerate(experiments):
        try:
            step = report and functools.partial(report, index)
            given = typed[index] if typed is not None else None
            parsed.append(_experiment(exp, index, step, fast=not non_finite, typed=given))
        except FieldError as bad:
            raise InputError(f"{path}: experiment {_label(modes, index)}: {bad}") from None
    where = _first_non_finite(doc, []) if non_finite else None
    if where is not None:  # strict JSON everywhere, also in fields riskcov does not store
        raise InputError(f"{path}: {_describe(doc, modes, where)} is not valid strict JSON")
    text = _text_or_none
    rows = [r for _, r in parsed]
    if progress is not None:
        progress(VALIDATED, "storing")
    n_part = sum(len(r.participants["participant_id"]) for r in rows)
    n_items = sum(len(r.items["participant_id"]) for r in rows)
    return ParsedRun(
        run_id=run_id,
        git_commit=text(meta.get("git_commit")),
        timestamp=text(meta.get("timestamp")),
        metadata_json=json.dumps(meta),
        input_format=FORMAT_NAME,
        experiments=[e for e, _ in parsed],
        fill=lambda con, ids: _fill(con, ids, rows),
        summary=f"{len(rows)} experiment(s), {n_part} participants, {n_items} items",
        rows=rows,  # the list fill reads: cleared once stored (riskcov.ingest)
    )


def _reporter(
    progress: Callable[[float, str], None] | None,
    experiments: list[Any],
    typed: list[ExperimentRows] | None,
) -> Callable[[int, int], None] | None:
    """report(experiment index, participants done in it) as progress between PARSED and
    VALIDATED, by participants over the whole file (columns are made per experiment)."""
    if progress is None:
        return None
    if typed is not None:
        sizes = [len(r.participants["participant_id"]) for r in typed]
    else:
        sizes = [_n_rows(e) for e in experiments]
    before = [sum(sizes[:i]) for i in range(len(sizes))]
    total = max(sum(sizes), 1)

    def report(index: int, done: int) -> None:
        share = (before[index] + done) / total
        progress(PARSED + (VALIDATED - PARSED) * share, "validating")

    return report


def _n_rows(exp: Any) -> int:
    res = exp.get("results") if isinstance(exp, dict) else None
    rows = res.get("results") if isinstance(res, dict) else None
    return len(rows) if isinstance(rows, list) else 0


def _label(modes: list[str | None], index: int) -> str:
    mode = modes[index]
    if mode and modes.count(mode) == 1:
        return mode
    return f"#{index}" + (f" ({mode})" if mode else "")


def _first_non_finite(value: Any, where: list[str | int]) -> list[str | int] | None:
    """The path to the first NaN/Infinity literal in the document, if any."""
    if isinstance(value, NonFinite):
        return where
    items = (
        value.items() if isinstance(value, dict) else (enumerate(value) if isinstance(value, list) else ())
    )
    for key, child in items:
        found = _first_non_finite(child, [*where, key])
        if found is not None:
            return found
    return None


def _describe(doc: Any, modes: list[str | None], where: list[str | int]) -> str:
    """`experiment X, participant P: field = NaN` (or the plain path outside results)."""
    value = doc
    for key in where:
        value = value[key]
    if where[:1] == ["experiments"] and len(where) >= 5 and where[2:4] == ["results", "results"]:
        exp = _label(modes, int(where[1]))
        row = doc["experiments"][where[1]]["results"]["results"][where[4]]
        field = ".".join(str(k) for k in where[5:])
        return f"experiment {exp}, participant {row.get('participant_id')}: {field} = {value.text}"
    dotted = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in where).lstrip(".")
    return f"{dotted} = {value.text}"


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _fill(con: duckdb.DuckDBPyConnection, ids: list[int], rows: list[ExperimentRows]) -> None:
    from riskcov.formats.phq8_json.store import fill

    fill(con, ids, rows)
