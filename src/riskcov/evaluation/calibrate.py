"""`riskcov calibrate`: fit a calibrator on the predicted items of one experiment
(docs/calibration.md), or on the non-abstained samples of a per-sample experiment
(riskcov.scoring.calibration.samples),
report its metrics, store it in `calibrators` and write its artifact, in one transaction."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from riskcov.errors import InputError, UsageError
from riskcov.ingest.inputs import Input, resolve
from riskcov.scoring.calibration.artifact import FEATURE_NAME, TARGETS, FittedOn, Method, Target, to_json
from riskcov.scoring.calibration.fit import fit, target_values
from riskcov.scoring.calibration.metrics import before_after, calibration_metrics
from riskcov.scoring.calibration.store import recover_output, save, text
from riskcov.scoring.calibration.to_sql import evaluate, feature_sql
from riskcov.scoring.csf import has_signal
from riskcov.warehouse.duckdb_helpers import transaction
from riskcov.warehouse.files import StagedOutput, printable

# --method as typed -> the artifact's method
METHODS: dict[str, Method] = {
    "temperature": "temperature_scaling",
    "temperature_scaling": "temperature_scaling",
    "platt": "platt",
    "logistic": "logistic",
    "isotonic": "isotonic",
}


@dataclass(frozen=True)
class CalibrateOptions:
    """What `riskcov calibrate` takes besides the warehouse."""

    input: str
    mode: str | None
    method: str
    features: list[str]
    target: str = "correctness"
    output: Path | None = None
    # a per-sample run's experiment: --experiment-method, --experiment-seed, --split, --domain
    criteria: dict[str, list[str]] = field(default_factory=dict)

    def check(self) -> tuple[Method, Target]:
        """Usage errors before any work is done; the artifact's method and target."""
        if self.method not in METHODS:
            raise UsageError(f"--method {self.method}: choose temperature, platt, logistic or isotonic")
        if self.target not in TARGETS:
            raise UsageError(f"--target {self.target}: choose {', '.join(TARGETS)}")
        if not self.features or any(not f for f in self.features):
            raise UsageError("--features: give signal names separated by commas, e.g. token_msp")
        for f in self.features:
            if not FEATURE_NAME.match(f):
                raise UsageError(
                    f"--features {printable(f)}: not a signal name (letters, digits and _, not starting "
                    "with a digit)"
                )
        if len(set(self.features)) != len(self.features):
            raise UsageError(f"--features {','.join(self.features)}: a name is given twice")
        return METHODS[self.method], self.target


def experiment_criteria(
    method: str | None, seed: str | int | None, split: str | None, domain: str | None
) -> dict[str, list[str]]:
    """CalibrateOptions.criteria from a per-sample experiment's fields (None: not chosen); every
    flag is offered, so an ambiguous run names the ones that choose.

    >>> experiment_criteria(None, 3, "cal", None)["--experiment-seed"]
    ['3']
    """
    fields = {"--method": method, "--experiment-seed": seed, "--split": split, "--domain": domain}
    return {flag: [] if v is None else [str(v)] for flag, v in fields.items()}


@dataclass(frozen=True)
class Calibrated:
    """What `calibrate` produced: the stored id, the artifact and where it was written."""

    calibrator_id: int
    sha256: str
    artifact: dict[str, Any]
    path: Path | None
    experiment: str = ""  # what it was fitted on, as messages name it
    per_sample: bool = False


def _rows(
    con: duckdb.DuckDBPyConnection, inp: Input, features: list[str], method: Method
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """pred, gt and the feature matrix of the predicted items, in (participant, item) order."""
    normalise = method == "temperature_scaling"
    for f in features:
        feature_sql(f)  # a malformed name fails here, before it reaches SQL
        (has,) = con.execute(
            f"SELECT count(*) FROM items AS i LEFT JOIN item_signals AS s USING (experiment_id,"
            f" participant_id, item_index) WHERE i.experiment_id = ? AND i.pred IS NOT NULL"
            f" AND {has_signal(f)}",
            [inp.experiment_id],
        ).fetchall()[0]
        if has == 0:
            raise InputError(
                f"--features {f}: run {inp.run_id}, {inp.describe()} has no predicted item with signal {f}"
            )
    cols = ", ".join(f"{feature_sql(f, normalise=normalise)} AS f{j}" for j, f in enumerate(features))
    # docs/calibration.md: temperature scaling of verbalized confidence leaves out items where it is null
    skip_null = (
        " AND s.verbalized_confidence IS NOT NULL"
        if normalise and features == ["verbalized_confidence"]
        else ""
    )
    rows = con.execute(
        f"SELECT i.pred, i.gt, {cols} FROM items AS i LEFT JOIN item_signals AS s"
        " USING (experiment_id, participant_id, item_index)"
        f" WHERE i.experiment_id = ? AND i.pred IS NOT NULL{skip_null}"
        " ORDER BY i.participant_id, i.item_index",
        [inp.experiment_id],
    ).fetchall()
    if not rows:
        raise InputError(f"run {inp.run_id}, {inp.describe()}: no predicted items to fit on")
    data = np.array(rows, dtype=np.float64)
    return data[:, 0], data[:, 1], data[:, 2:]


def calibrate(con: duckdb.DuckDBPyConnection, opts: CalibrateOptions) -> Calibrated:
    """Fit, measure, store and write; nothing is kept when anything fails."""
    method, target = opts.check()
    if opts.output is not None:
        recover_output(con, opts.output)
    with transaction(con) as tx:
        criteria = {"--mode": [opts.mode] if opts.mode else [], **opts.criteria}
        (inp,) = resolve(con, [opts.input], criteria)
        if inp.per_sample:
            from riskcov.scoring.calibration.samples import sample_rows

            x, y, outcome = sample_rows(con, inp, opts.features, target)
        else:
            pred, gt, x = _rows(con, inp, opts.features, method)
            y = target_values(pred, gt, target)
            # ECE/NLL/Brier need a 0/1 outcome: near_correct for that target, else correctness
            outcome = target_values(pred, gt, "near_correct" if target == "near_correct" else "correctness")
        try:
            cal = fit(method, opts.features, target, x, y)
        except InputError as exc:
            raise InputError(f"run {inp.run_id}, {inp.describe()}: {exc}") from exc
        after = evaluate(con, cal, x)  # the SQL that evaluate runs, not a numpy twin of it
        if x.shape[1] == 1:
            metrics = before_after(con, x[:, 0], after, outcome)
        else:
            m = calibration_metrics(con, after, outcome)
            metrics = {"n": m["n"], "n_bins": m["n_bins"]}
            for key in ("ece", "nll", "brier", "auroc"):
                metrics[f"{key}_before"] = None  # several features: no one raw confidence
                metrics[f"{key}_after"] = m[key]
        fitted_on = FittedOn(inp.run_id, inp.sha256, inp.mode or "", int(y.size))
        doc = to_json(cal, fitted_on=fitted_on, metrics=metrics)
        cid, sha = save(con, doc)
        tx.stored = f"calibrator {cid}"
        if opts.output is not None:  # renamed into place right after COMMIT
            staged = StagedOutput(opts.output, text(doc), "the calibrator")
            tx.then(staged.finish, staged.discard)
    return Calibrated(cid, sha, doc, opts.output, inp.describe(), inp.per_sample)
