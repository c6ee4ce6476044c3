"""What an evaluation takes: `--input` runs resolved to experiments, and the analysis set of
participants (or sample clusters) metrics are computed on (docs/metrics.md, docs/formats.md)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import duckdb

from riskcov.errors import InputError, UsageError
from riskcov.ingest import ingest_file
from riskcov.warehouse.duckdb_helpers import one

# experiment fields an input can be chosen by: (flag, experiments column)
CRITERIA = (
    ("--mode", "mode"),
    ("--method", "method"),
    ("--experiment-seed", "seed"),  # `--seed` is the bootstrap seed
    ("--split", "split"),
    ("--domain", "domain"),
)


@dataclass(frozen=True)
class Input:
    """One evaluated experiment."""

    label: str  # what the user passed
    run_id: str
    git_commit: str | None
    sha256: str
    experiment_id: int
    loss_kind: str  # abs_error (PHQ-8 items) or given (per-sample runs)
    fields: dict[str, str | int | None]  # mode, method, seed, split, domain
    included: frozenset[int]
    failed: frozenset[int]
    # the run was ingested by this resolve (a new file, uncommitted in the caller's transaction)
    ingested: bool = field(default=False, compare=False)

    @property
    def per_sample(self) -> bool:
        return self.loss_kind == "given"

    @property
    def mode(self) -> str | None:
        m = self.fields["mode"]
        return None if m is None else str(m)

    def describe(self) -> str:
        """How messages name the experiment: its mode, or its (method, seed, split, domain)."""
        if not self.per_sample:
            return f"experiment {self.mode}"
        return "experiment " + ", ".join(
            f"{k} {self.fields[k]}" for k in ("method", "seed", "split", "domain")
        )


@dataclass(frozen=True)
class AnalysisSet:
    """The participants metrics are computed on, and the counts the artifact reports."""

    participants: list[int]  # sorted ascending: the bootstrap draws index this list
    counts: dict[str, int]
    comparison: dict[str, int] = field(default_factory=dict)


def _run_id(con: duckdb.DuckDBPyConnection, spec: str) -> tuple[str, bool]:
    """The run_id of the run `spec` names, and whether it was ingested just now."""
    path = Path(spec)
    if path.is_file():  # inside evaluate's transaction: a failed evaluation keeps nothing
        done = ingest_file(con, path, own_transaction=False)
        return str(done.run_id), done.status != "unchanged"
    row = one(con.execute("SELECT run_id FROM runs WHERE run_id = ?", [spec]))
    if row:
        return str(row[0]), False
    raise InputError(f"--input {spec}: no such file, and no run with that run_id in the warehouse")


def resolve(con: duckdb.DuckDBPyConnection, specs: list[str], criteria: dict[str, list[str]]) -> list[Input]:
    """Inputs with their experiment; each criterion (--mode, --method, ...) is given once for
    every input or once per input. One input with a criterion given twice is a pair of
    experiments of the same run (`--input X --mode zero_shot --mode few_shot`)."""
    if not specs:
        raise UsageError("--input is required (a run file path or an ingested run_id)")
    counts = {len(v) for v in criteria.values() if v}
    if len(specs) == 1 and counts == {2}:
        specs = specs * 2
    if len(specs) > 2:
        raise UsageError("at most two --input (a paired comparison) are supported")
    for flag, values in criteria.items():
        if len(values) not in (0, 1, len(specs)):
            raise UsageError(
                f"{flag} given {len(values)} times for {len(specs)} --input: "
                "give none, one for all inputs, or one per input"
            )
    run_ids = [_run_id(con, spec) for spec in specs]
    out = []
    for k, (spec, (run_id, ingested)) in enumerate(zip(specs, run_ids, strict=True)):
        wanted = {flag: (vals[0] if len(vals) == 1 else vals[k]) for flag, vals in criteria.items() if vals}
        found = _experiment(con, spec, run_id, wanted, frozenset(criteria))
        out.append(replace(found, ingested=ingested) if ingested else found)
    return out


_COLUMNS = ("experiment_id", "loss_kind", "mode", "method", "seed", "split", "domain")


_SHOWN = 8  # values listed per flag


def _options(rows: list[dict[str, object]], varying: bool = False) -> str:
    """What chooses among `rows`: PHQ-8 modes, or per flag its values (`varying`: only the
    flags whose value differs between rows), a short list however many experiments there are.

    >>> rows = [{"loss_kind": "given", "method": "m", "seed": s, "split": "test", "domain": "id"}
    ...         for s in range(10)]
    >>> _options(rows, varying=True)
    '--experiment-seed (0, 1, 2, 3, 4, 5, 6, 7, ... 10 in all)'
    """
    if all(r["loss_kind"] != "given" for r in rows):
        return ", ".join(str(r["mode"]) for r in rows)
    parts = []
    for flag, column in CRITERIA[1:]:
        values = list(dict.fromkeys(str(r[column]) for r in rows))
        if varying and len(values) < 2:
            continue
        more = f", ... {len(values)} in all" if len(values) > _SHOWN else ""
        parts.append(f"{flag} ({', '.join(values[:_SHOWN])}{more})")
    return ", ".join(parts)


def _experiment(
    con: duckdb.DuckDBPyConnection, spec: str, run_id: str, wanted: dict[str, str], offered: frozenset[str]
) -> Input:
    """The experiment of run_id that `wanted` picks; `offered`: the flags the command has."""
    found = con.execute(
        f"SELECT {', '.join('e.' + c for c in _COLUMNS)}, r.git_commit, r.sha256 "
        "FROM experiments e JOIN runs r USING (run_id) WHERE run_id = ? "
        "ORDER BY e.experiment_index",
        [run_id],
    ).fetchall()
    rows = [dict(zip((*_COLUMNS, "git_commit", "sha256"), r, strict=True)) for r in found]
    available = _options(rows)
    mode = wanted.get("--mode")
    if mode is not None and mode.startswith("#") and mode[1:].isdigit():
        rows = [r for i, r in enumerate(rows) if i == int(mode[1:])]  # by position in the file
        if not rows:
            raise InputError(
                f"--input {spec}: run {run_id} has no experiment {mode} (available: {available})"
            )
        wanted = {k: v for k, v in wanted.items() if k != "--mode"}
    for flag, column in CRITERIA:
        value = wanted.get(flag)
        if value is None:
            continue
        kept = [r for r in rows if r[column] is not None and str(r[column]) == value]
        if not kept:
            raise InputError(
                f"--input {spec}: run {run_id} has no experiment with {column} "
                f"{value} (available: {available})"
            )
        if flag == "--mode" and len(kept) > 1 and len({str(r["mode"]) for r in rows}) < len(rows):
            raise InputError(
                f"--input {spec}: mode {value} matches {len(kept)} experiments of "
                f"run {run_id}; it is ambiguous: choose one by position, "
                f"--mode '#0' to --mode '#{len(rows) - 1}'"
            )
        rows = kept
    if len(rows) > 1:
        per_sample = ", ".join(flag for flag, _ in CRITERIA[1:] if flag in offered)
        if rows[0]["loss_kind"] == "given" and not per_sample:  # a command of PHQ-8 runs only
            raise UsageError(
                f"--input {spec}: run {run_id} is a per-sample run; this command reads PHQ-8 runs"
            )
        if rows[0]["loss_kind"] != "given":
            raise UsageError(
                f"--input {spec}: run {run_id} has {len(rows)} experiments "
                f"({_options(rows)}); choose one with --mode"
            )
        raise UsageError(
            f"--input {spec}: run {run_id} has {len(rows)} experiments; "
            f"choose one with {_options(rows, varying=True)}"
        )
    r = rows[0]
    eid = int(str(r["experiment_id"]))
    if r["loss_kind"] == "given":
        units = con.execute(
            "SELECT DISTINCT participant_id FROM v_sample_units WHERE experiment_id = ?", [eid]
        ).fetchall()
        people = [(p, True) for (p,) in units]
    else:
        people = con.execute(
            "SELECT participant_id, success FROM participants WHERE experiment_id = ?", [eid]
        ).fetchall()
    return Input(
        spec,
        run_id,
        _text(r["git_commit"]),
        str(r["sha256"]),
        eid,
        str(r["loss_kind"]),
        {c: r[c] for c in ("mode", "method", "seed", "split", "domain")},
        frozenset(p for p, ok in people if ok),
        frozenset(p for p, ok in people if not ok),
    )


def _text(v: object) -> str | None:
    return None if v is None else str(v)


def analysis_set(inputs: list[Input], intersection_only: bool) -> AnalysisSet:
    """docs/metrics.md: one input uses its successful participants; a pair, those successful in both."""
    if len(inputs) == 1:
        (only,) = inputs
        return AnalysisSet(
            sorted(only.included),
            {
                "participants_total": len(only.included) + len(only.failed),
                "participants_included": len(only.included),
                "participants_failed": len(only.failed),
            },
        )
    left, right = inputs
    if left.per_sample != right.per_sample:
        raise UsageError(
            "a paired comparison needs two inputs of the same format (two PHQ-8 "
            "experiments or two per-sample experiments)"
        )
    all_l, all_r = left.included | left.failed, right.included | right.failed
    if all_l != all_r and not intersection_only:
        what = "sample clusters" if left.per_sample else "participant sets"
        raise InputError(
            f"{what} differ ({len(all_l - all_r)} only in the left input, "
            f"{len(all_r - all_l)} only in the right); pass --intersection-only to compare "
            "the overlap"
        )
    overlap = all_l & all_r
    analysis = left.included & right.included & overlap
    counts = {
        "participants_total": len(overlap),
        "participants_included": len(analysis),
        "participants_failed": len(overlap) - len(analysis),
    }
    comparison = {
        "participants_left_only": len(all_l - all_r),
        "participants_right_only": len(all_r - all_l),
        "participants_overlap_total": len(overlap),
        "participants_overlap_included": len(analysis),
        "participants_failed_left": len(overlap & left.failed),
        "participants_failed_right": len(overlap & right.failed),
    }
    return AnalysisSet(sorted(analysis), counts, comparison)
