"""What the risk-control commands read: `--input` runs resolved to their per-sample experiments,
keyed by (method, seed, split, domain), one confidence column chosen, and one experiment's
samples as arrays (docs/formats.md, docs/risk-control.md)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import duckdb
import numpy as np

from riskcov.errors import InputError, UsageError
from riskcov.warehouse.duckdb_helpers import one

FloatArray = np.ndarray[Any, np.dtype[np.float64]]
BoolArray = np.ndarray[Any, np.dtype[np.bool_]]


class Key(NamedTuple):
    """An experiment's place: which method, seed, split and domain it holds."""

    method: str
    seed: int
    split: str
    domain: str


@dataclass(frozen=True)
class Experiment:
    """One per-sample experiment of an input run."""

    experiment_id: int
    run_id: str
    key: Key

    def describe(self) -> str:
        """How messages name the experiment.

        >>> Experiment(1, "r", Key("m", 0, "cal", "id")).describe()
        'run r method m seed 0 split cal domain id'
        """
        k = self.key
        return f"run {self.run_id} method {k.method} seed {k.seed} split {k.split} domain {k.domain}"


class Samples(NamedTuple):
    """One experiment's samples in file order; an abstained sample's confidence is NaN."""

    confidence: FloatArray
    loss: FloatArray
    abstained: BoolArray


def _run_id(con: duckdb.DuckDBPyConnection, spec: str) -> str:
    path = Path(spec)
    if path.is_file():  # inside the command's transaction: a failed command keeps nothing
        from riskcov.ingest import ingest_file

        return str(ingest_file(con, path, own_transaction=False).run_id)
    row = one(con.execute("SELECT run_id FROM runs WHERE run_id = ?", [spec]))
    if row:
        return str(row[0])
    raise InputError(f"--input {spec}: no such file, and no run with that run_id in the warehouse")


def resolve(con: duckdb.DuckDBPyConnection, specs: list[str], methods: list[str]) -> list[Experiment]:
    """Every per-sample experiment of the input runs (only `methods`, when given), sorted by key.

    A PHQ-8 run, a method no input has, and two experiments with one key are refused.
    """
    if not specs:
        raise UsageError("--input is required (a per-sample run file or an ingested run_id)")
    runs = {_run_id(con, s): s for s in reversed(specs)}  # a run given twice is read once
    found: list[Experiment] = []
    for run_id, spec in sorted(runs.items()):
        rows = con.execute(
            "SELECT experiment_id, loss_kind, method, seed, split, domain FROM experiments "
            "WHERE run_id = ? ORDER BY experiment_index",
            [run_id],
        ).fetchall()
        if any(kind != "given" for _, kind, *_ in rows):
            raise InputError(f"--input {spec}: run {run_id} is a PHQ-8 run, not a per-sample run")
        found += [
            Experiment(int(e), run_id, Key(str(m), int(s), str(sp), str(d))) for e, _, m, s, sp, d in rows
        ]
    if methods:
        have = sorted({e.key.method for e in found})
        missing = [m for m in methods if m not in have]
        if missing:
            raise InputError(
                f"--method {missing[0]}: no input has that method (available: {', '.join(have)})"
            )
        found = [e for e in found if e.key.method in methods]
    found.sort(key=lambda e: (e.key, e.run_id))
    for a, b in itertools.pairwise(found):
        if a.key == b.key:
            raise InputError(
                f"runs {a.run_id} and {b.run_id} both hold method {a.key.method} seed {a.key.seed} "
                f"split {a.key.split} domain {a.key.domain}; pass only one of them"
            )
    return found


def choose_csf(con: duckdb.DuckDBPyConnection, experiments: list[Experiment], name: str | None) -> str:
    """The confidence column every experiment is read by: `name`, else `confidence`, else the
    only one the experiments share; refused when an experiment lacks it or the choice is open."""
    ids = [e.experiment_id for e in experiments]
    rows = con.execute(
        "SELECT experiment_id, list(DISTINCT csf ORDER BY csf) FROM sample_scores "
        "WHERE experiment_id IN (SELECT unnest(?)) GROUP BY experiment_id",
        [ids],
    ).fetchall()
    have = {int(e): list(names) for e, names in rows}
    shared = sorted(set.intersection(*(set(have.get(i, [])) for i in ids))) if ids else []
    if name is None:
        if "confidence" in shared or len(shared) == 1:
            return "confidence" if "confidence" in shared else shared[0]
        raise UsageError(
            f"the inputs have several confidence columns ({', '.join(shared) or 'none shared'}); "
            "choose one with --confidence"
        )
    for e in experiments:
        if name not in have.get(e.experiment_id, []):
            raise UsageError(
                f"unknown confidence {name!r}: {e.describe()} has "
                f"{', '.join(have.get(e.experiment_id, [])) or 'no score column'}"
            )
    return name


def load(con: duckdb.DuckDBPyConnection, experiment: Experiment, csf: str) -> Samples:
    """The experiment's confidences (by `csf`), losses and abstentions, in file order."""
    got = con.execute(
        "SELECT coalesce(sc.confidence, 'NaN'::DOUBLE) AS confidence, s.loss, s.abstained "
        "FROM samples AS s JOIN sample_scores AS sc USING (experiment_id, sample_index) "
        "WHERE s.experiment_id = ? AND sc.csf = ? ORDER BY s.sample_index",
        [experiment.experiment_id, csf],
    ).fetchnumpy()
    return Samples(
        np.asarray(got["confidence"], dtype=np.float64),
        np.asarray(got["loss"], dtype=np.float64),
        np.asarray(got["abstained"], dtype=np.bool_),
    )


def named(experiment: Experiment, exc: InputError) -> InputError:
    """The same data error, prefixed with the experiment it is in."""
    return InputError(f"{experiment.describe()}: {exc}")
