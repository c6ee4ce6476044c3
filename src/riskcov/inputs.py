"""Resolve `evaluate --input/--mode` to experiments and the analysis population (SPEC §5)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

from riskcov.db import one
from riskcov.errors import InputError, UsageError
from riskcov.ingest import ingest_file


@dataclass(frozen=True)
class Input:
    """One evaluated experiment."""

    label: str  # what the user passed
    run_id: str
    git_commit: str | None
    sha256: str
    experiment_id: int
    mode: str | None
    score_range: int
    item_names: tuple[str, ...]
    included: frozenset[int]
    failed: frozenset[int]


@dataclass(frozen=True)
class Population:
    """The participants metrics are computed on, and the counts the artifact reports."""

    participants: list[int]  # sorted ascending: the bootstrap draws index this list
    counts: dict[str, int]
    comparison: dict[str, int]


def _run_id(con: duckdb.DuckDBPyConnection, spec: str) -> str:
    path = Path(spec)
    if path.is_file():  # inside evaluate's transaction: a failed evaluation keeps nothing
        return str(ingest_file(con, path, own_transaction=False).run_id)
    row = one(con.execute("SELECT run_id FROM runs WHERE run_id = ?", [spec]))
    if row:
        return str(row[0])
    raise InputError(f"--input {spec}: no such file, and no run with that run_id in the warehouse")


def resolve(con: duckdb.DuckDBPyConnection, specs: list[str], modes: list[str]) -> list[Input]:
    """Inputs with their experiment, mode broadcast or matched by position."""
    if not specs:
        raise UsageError("--input is required (a run JSON path or an ingested run_id)")
    if len(specs) > 2:
        raise UsageError("at most two --input (a paired comparison) are supported")
    if len(modes) not in (0, 1, len(specs)):
        raise UsageError(f"--mode given {len(modes)} times for {len(specs)} --input: "
                         "give none, one for all inputs, or one per input")
    per_input: list[str | None] = (
        [modes[0]] * len(specs) if len(modes) == 1 else (list(modes) or [None] * len(specs)))
    return [_experiment(con, spec, _run_id(con, spec), mode)
            for spec, mode in zip(specs, per_input, strict=True)]


def _experiment(con: duckdb.DuckDBPyConnection, spec: str, run_id: str,
                mode: str | None) -> Input:
    rows = con.execute(
        "SELECT e.experiment_id, e.mode, e.score_max - e.score_min, e.item_names, "
        "r.git_commit, r.sha256 FROM experiments e JOIN runs r USING (run_id) WHERE run_id = ? "
        "ORDER BY e.experiment_index", [run_id]).fetchall()
    available = ", ".join(str(r[1]) for r in rows)
    if mode is not None and mode.startswith("#") and mode[1:].isdigit():
        rows = [r for i, r in enumerate(rows) if i == int(mode[1:])]  # by position in the file
        if not rows:
            raise InputError(f"--input {spec}: run {run_id} has no experiment {mode} "
                             f"(available: {available})")
    elif mode is not None:
        rows = [r for r in rows if r[1] == mode]
        if not rows:
            raise InputError(f"--input {spec}: run {run_id} has no experiment with mode {mode} "
                             f"(available: {available})")
        if len(rows) > 1:
            raise InputError(f"--input {spec}: mode {mode} matches {len(rows)} experiments of "
                             f"run {run_id}; it is ambiguous: choose one by position, "
                             f"--mode '#0' to --mode '#{len(available.split(', ')) - 1}'")
    elif len(rows) > 1:
        raise UsageError(f"--input {spec}: run {run_id} has {len(rows)} experiments "
                         f"({available}); choose one with --mode")
    eid, exp_mode, score_range, item_names, commit, sha = rows[0]
    people = con.execute("SELECT participant_id, success FROM participants WHERE experiment_id = ?",
                         [eid]).fetchall()
    return Input(spec, run_id, commit, str(sha), int(eid), exp_mode, int(score_range), tuple(item_names),
                 frozenset(p for p, ok in people if ok), frozenset(p for p, ok in people if not ok))


def population(inputs: list[Input], intersection_only: bool) -> Population:
    """SPEC §5: one input uses its successful participants; a pair, those successful in both."""
    if len(inputs) == 1:
        (one,) = inputs
        return Population(sorted(one.included), {
            "participants_total": len(one.included) + len(one.failed),
            "participants_included": len(one.included),
            "participants_failed": len(one.failed),
            "items_total": len(one.included) * len(one.item_names),
        }, {})
    left, right = inputs
    all_l, all_r = left.included | left.failed, right.included | right.failed
    if all_l != all_r and not intersection_only:
        raise InputError(
            f"participant sets differ ({len(all_l - all_r)} only in the left input, "
            f"{len(all_r - all_l)} only in the right); pass --intersection-only to compare "
            "the overlap")
    overlap = all_l & all_r
    analysis = left.included & right.included & overlap
    counts = {
        "participants_total": len(overlap),
        "participants_included": len(analysis),
        "participants_failed": len(overlap) - len(analysis),
        "items_total": len(analysis) * len(left.item_names),
    }
    comparison = {
        "participants_left_only": len(all_l - all_r),
        "participants_right_only": len(all_r - all_l),
        "participants_overlap_total": len(overlap),
        "participants_overlap_included": len(analysis),
        "participants_failed_left": len(overlap & left.failed),
        "participants_failed_right": len(overlap & right.failed),
    }
    return Population(sorted(analysis), counts, comparison)
