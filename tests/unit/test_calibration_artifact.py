"""Calibrator artifacts (docs/calibration.md): the reference's files load, ours round-trip, bad
ones are refused with one line naming the file and the field."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from riskcov.errors import InputError
from riskcov.scoring.calibration.artifact import (
    Calibrator,
    FittedOn,
    Isotonic,
    Linear,
    Temperature,
    load,
    parse,
    to_json,
    write,
)

# Reference-format files, reconstructed from The-Obstacle-Is-The-Way/ai-psychiatrist:
# - scripts/calibrate_verbalized_confidence.py, build_artifact(): method, created_at, a top-level
#   temperature, fitted_on {path, run_id, git_commit, mode, n_samples}, metrics {nll/ece
#   before/after}; json.dump(indent=2, sort_keys=True);
# - scripts/train_confidence_calibrator.py, build_artifact(): schema_version, method ("temperature"
#   becomes "temperature_scaling"), version "1.0", features, target, training_metadata,
#   validation_metrics, and model = {temperature} | {x_thresholds, y_thresholds} (sklearn's
#   IsotonicRegression X_thresholds_ / y_thresholds_) | {coefficients, intercept, link
#   ("sigmoid" for LogisticRegression, "identity" for Ridge on the loss target), scaler {mean, std}};
# - docs/_archive/specs/spec-049-supervised-confidence-calibrator.md §2.2: the schema example,
#   whose model has no link.
REF_VERBALIZED = """{
  "created_at": "2026-01-03T18:04:11.512345Z",
  "fitted_on": {
    "git_commit": "c6a1d95",
    "mode": "few_shot",
    "n_samples": 464,
    "path": "data/outputs/run_paper_train.json",
    "run_id": "19b42478"
  },
  "method": "temperature_scaling",
  "metrics": {
    "ece_after": 0.0412,
    "ece_before": 0.1534,
    "nll_after": 0.6123,
    "nll_before": 0.9876
  },
  "schema_version": "1",
  "temperature": 2.3181818181818183
}
"""
_TRAINING = {
    "git_commit": "c6a1d95",
    "mode": "few_shot",
    "n_samples": 464,
    "path": "data/outputs/run_paper_train.json",
    "positive_rate": 0.65,
    "run_id": "19b42478",
    "trained_at": "2026-01-03T18:10:00.000000Z",
}
REF_LOGISTIC: dict[str, Any] = {
    "features": ["llm_evidence_count", "retrieval_similarity_mean", "verbalized_confidence"],
    "method": "logistic",
    "model": {
        "coefficients": [0.4123, 0.2876, 0.5512],
        "intercept": 0.6931,
        "link": "sigmoid",
        "scaler": {"mean": [1.5, 0.75, 3.2], "std": [0.8, 0.12, 0.9]},
    },
    "schema_version": "1",
    "target": "correctness",
    "training_metadata": _TRAINING,
    "validation_metrics": {"auc_roc": 0.78, "brier_score": 0.18, "ece": 0.05},
    "version": "1.0",
}
REF_PLATT_LOSS: dict[str, Any] = {
    "features": ["retrieval_similarity_mean"],
    "method": "platt",
    "model": {
        "coefficients": [0.05],
        "intercept": 0.81,
        "link": "identity",
        "scaler": {"mean": [0.74], "std": [0.11]},
    },
    "schema_version": "1",
    "target": "loss",
    "training_metadata": {**_TRAINING, "positive_rate": None},
    "validation_metrics": {"mae": 0.21, "mse": 0.07},
    "version": "1.0",
}
REF_ISOTONIC: dict[str, Any] = {
    "features": ["token_msp"],
    "method": "isotonic",
    "model": {"x_thresholds": [0.31, 0.52, 0.88, 0.97], "y_thresholds": [0.2, 0.5, 0.5, 0.9]},
    "schema_version": "1",
    "target": "near_correct",
    "training_metadata": _TRAINING,
    "validation_metrics": {"auc_roc": 0.7, "brier_score": 0.2, "ece": 0.03},
    "version": "1.0",
}
REF_TEMPERATURE: dict[str, Any] = {
    "features": ["token_msp"],
    "method": "temperature_scaling",
    "model": {"temperature": 1.75},
    "schema_version": "1",
    "target": "correctness",
    "training_metadata": _TRAINING,
    "validation_metrics": {"auc_roc": 0.7, "brier_score": 0.2, "ece": 0.03},
    "version": "1.0",
}
SPEC_049_EXAMPLE: dict[str, Any] = {
    "method": "logistic",
    "version": "1.0",
    "features": ["llm_evidence_count", "retrieval_similarity_mean", "verbalized_confidence"],
    "target": "correctness",
    "model": {
        "coefficients": [0.23, 0.45, 0.32],
        "intercept": -1.2,
        "scaler": {"mean": [1.5, 0.75, 3.2], "std": [0.8, 0.12, 0.9]},
    },
    "training_metadata": {"run_id": "abc123", "mode": "few_shot", "n_samples": 464, "positive_rate": 0.65},
    "validation_metrics": {"auc_roc": 0.78, "brier_score": 0.18, "ece": 0.05},
}


def _file(tmp_path: Path, doc: Any) -> Path:
    path = tmp_path / "cal.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc, indent=2, sort_keys=True))
    return path


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (
            REF_VERBALIZED,
            Calibrator("temperature_scaling", (), "correctness", Temperature(2.3181818181818183)),
        ),
        (
            REF_LOGISTIC,
            Calibrator(
                "logistic",
                tuple(REF_LOGISTIC["features"]),
                "correctness",
                Linear((0.4123, 0.2876, 0.5512), 0.6931, "sigmoid", (1.5, 0.75, 3.2), (0.8, 0.12, 0.9)),
            ),
        ),
        (
            REF_PLATT_LOSS,
            Calibrator(
                "platt",
                ("retrieval_similarity_mean",),
                "loss",
                Linear((0.05,), 0.81, "identity", (0.74,), (0.11,)),
            ),
        ),
        (
            REF_ISOTONIC,
            Calibrator(
                "isotonic",
                ("token_msp",),
                "near_correct",
                Isotonic((0.31, 0.52, 0.88, 0.97), (0.2, 0.5, 0.5, 0.9)),
            ),
        ),
        (
            REF_TEMPERATURE,
            Calibrator("temperature_scaling", ("token_msp",), "correctness", Temperature(1.75)),
        ),
        # no link: the reference's trainer used sigmoid for binary targets
        (
            SPEC_049_EXAMPLE,
            Calibrator(
                "logistic",
                tuple(SPEC_049_EXAMPLE["features"]),
                "correctness",
                Linear((0.23, 0.45, 0.32), -1.2, "sigmoid", (1.5, 0.75, 3.2), (0.8, 0.12, 0.9)),
            ),
        ),
    ],
)
def test_reference_files_load(tmp_path: Path, doc: Any, expected: Calibrator) -> None:
    path = _file(tmp_path, doc)
    assert load(path) == Calibrator(
        expected.method, expected.features, expected.target, expected.model, str(path)
    )


def test_missing_link_on_loss_target_is_identity() -> None:
    doc = copy.deepcopy(REF_PLATT_LOSS)
    del doc["model"]["link"]
    model = parse(doc, "x.json").model
    assert isinstance(model, Linear)
    assert model.link == "identity"


def test_equal_temperatures_in_both_places() -> None:
    doc = {"method": "temperature_scaling", "temperature": 2, "model": {"temperature": 2.0}}
    assert parse(doc, "x.json").model == Temperature(2.0)


def _with(base: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of `base` with the dotted `path` set to `value` (or deleted for DELETE)."""
    doc = copy.deepcopy(base)
    *parents, last = path.split(".")
    node = doc
    for key in parents:
        node = node[key]
    if value is DELETE:
        del node[last]
    else:
        node[last] = value
    return doc


DELETE = object()
LOG, ISO, TEMP = REF_LOGISTIC, REF_ISOTONIC, REF_TEMPERATURE


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([1, 2], "the calibrator is not a JSON object"),
        (_with(LOG, "method", DELETE), "method is missing"),
        (
            _with(LOG, "method", "svm"),
            'method = "svm" is not one of temperature_scaling, platt, logistic, isotonic',
        ),
        (
            _with(LOG, "method", "temperature"),
            'method = "temperature" is not one of temperature_scaling, platt, logistic, isotonic',
        ),
        (_with(LOG, "features", DELETE), "features is missing"),
        (_with(LOG, "features", "token_msp"), 'features = "token_msp" is not a list of signal names'),
        (_with(LOG, "features", [3]), "features[0] = 3 is not a signal name"),
        (_with(LOG, "features", ["a", "b c", "d"]), 'features[1] = "b c" is not a signal name'),
        (_with(LOG, "features", ["a", "b", "a"]), 'features[2] = "a" repeats features[0]'),
        (_with(LOG, "features", []), "features = [] is empty"),
        (
            _with(ISO, "features", ["a", "b"]),
            'features = ["a", "b"] does not have exactly one name; isotonic takes one',
        ),
        (
            _with(TEMP, "features", ["a", "b"]),
            'features = ["a", "b"] has more than one name; temperature_scaling takes one',
        ),
        (_with(LOG, "target", DELETE), "target is missing"),
        (_with(LOG, "target", "mse"), 'target = "mse" is not one of correctness, near_correct, loss'),
        (
            _with(TEMP, "target", "loss"),
            'target = "loss" does not go with method temperature_scaling (a binary target)',
        ),
        (_with(LOG, "model", DELETE), "model is missing"),
        (_with(LOG, "model", []), "model = [] is not an object"),
        (_with(LOG, "model.coefficients", DELETE), "model.coefficients is missing"),
        (_with(LOG, "model.coefficients", "x"), 'model.coefficients = "x" is not a list of numbers'),
        (_with(LOG, "model.coefficients", [1, True, 2]), "model.coefficients[1] = true is not a number"),
        (_with(LOG, "model.coefficients", [1, 2]), "model.coefficients has 2 numbers, the features 3 names"),
        (_with(LOG, "model.intercept", DELETE), "model.intercept is missing"),
        (_with(LOG, "model.intercept", "0"), 'model.intercept = "0" is not a number'),
        (_with(LOG, "model.intercept", None), "model.intercept = null is not a number"),
        (_with(LOG, "model.link", "tanh"), 'model.link = "tanh" is not one of sigmoid, identity'),
        (_with(LOG, "model.scaler", DELETE), "model.scaler is missing"),
        (_with(LOG, "model.scaler", [0.1]), "model.scaler = [0.1] is not an object"),
        (_with(LOG, "model.scaler.mean", DELETE), "model.scaler.mean is missing"),
        (_with(LOG, "model.scaler.std", [0.8, "x", 0.9]), 'model.scaler.std[1] = "x" is not a number'),
        (_with(LOG, "model.scaler.std", [0.8, 0, 0.9]), "model.scaler.std[1] = 0 is not a positive number"),
        (_with(LOG, "model.scaler.std", [1.0]), "model.scaler.std has 1 number, the features 3 names"),
        (_with(TEMP, "model", {}), "model.temperature is missing (a top-level temperature is accepted too)"),
        (_with(TEMP, "model.temperature", 0), "model.temperature = 0 is not a positive number"),
        (_with(TEMP, "model.temperature", "2"), 'model.temperature = "2" is not a number'),
        (_with(TEMP, "temperature", -1), "temperature = -1 is not a positive number"),
        (_with(TEMP, "temperature", 2.0), "temperature = 2.0 disagrees with model.temperature = 1.75"),
        (_with(ISO, "model.x_thresholds", DELETE), "model.x_thresholds is missing"),
        (_with(ISO, "model.y_thresholds", DELETE), "model.y_thresholds is missing"),
        (
            _with(_with(ISO, "model.x_thresholds", []), "model.y_thresholds", []),
            "model.x_thresholds is empty",
        ),
        (_with(ISO, "model.y_thresholds", [0.5]), "model.y_thresholds has 1 number, model.x_thresholds 4"),
        (
            _with(ISO, "model.x_thresholds", [0.1, 0.5, 0.5, 0.9]),
            "model.x_thresholds[2] = 0.5 is not above model.x_thresholds[1] = 0.5",
        ),
        (
            _with(ISO, "model.y_thresholds", [0.1, 0.2, {"y": 1}, 0.3]),
            'model.y_thresholds[2] = {"y": 1} is not a number',
        ),
    ],
)
def test_malformed_artifacts_are_refused(tmp_path: Path, doc: Any, message: str) -> None:
    path = _file(tmp_path, doc)
    with pytest.raises(InputError) as exc:
        load(path)
    assert str(exc.value) == f"{path}: {message}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
        ('{"method": "temperature_scaling", "temperature": NaN}', "NaN is not valid strict JSON"),
        (
            '{"method": "temperature_scaling", "temperature": 1e999}',
            "temperature = Infinity is not a finite number",
        ),
    ],
)
def test_unreadable_json_is_refused(tmp_path: Path, text: str, message: str) -> None:
    path = _file(tmp_path, text)
    with pytest.raises(InputError) as exc:
        load(path)
    assert str(exc.value) == f"{path}: {message}"


def test_missing_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "nope.json"
    with pytest.raises(InputError) as exc:
        load(path)
    assert str(exc.value) == f"{path}: cannot read the calibrator: No such file or directory"


FITTED = FittedOn(run="run-1", sha256="ab" * 32, mode="few_shot", n=40)


@pytest.mark.parametrize(
    "cal",
    [
        Calibrator("temperature_scaling", ("verbalized_confidence",), "correctness", Temperature(0.1 + 0.2)),
        Calibrator(
            "logistic",
            ("a", "b"),
            "near_correct",
            Linear((1 / 3, -2.5e-17), 0.1, "sigmoid", (0.7, 1e300), (1 / 7, 3.0)),
        ),
        Calibrator("platt", ("a",), "loss", Linear((0.5,), 0.25, "identity", (2.0,), (1.0,))),
        Calibrator("isotonic", ("token_msp",), "correctness", Isotonic((0.1, 0.7), (1 / 3, 2 / 3))),
    ],
)
def test_ours_round_trips_exactly(tmp_path: Path, cal: Calibrator) -> None:
    path = tmp_path / "ours.json"
    write(path, cal, fitted_on=FITTED, metrics={"ece_after": 0.1, "auroc_before": None})
    assert load(path) == Calibrator(cal.method, cal.features, cal.target, cal.model, str(path))


def test_our_temperature_artifact_in_full() -> None:
    cal = Calibrator("temperature_scaling", ("verbalized_confidence",), "correctness", Temperature(0.5))
    assert to_json(cal, fitted_on=FITTED, metrics={"nll_after": 0.25}) == {
        "schema_version": "1",
        "version": "1.0",
        "method": "temperature_scaling",
        "features": ["verbalized_confidence"],
        "target": "correctness",
        "model": {"temperature": 0.5},
        "temperature": 0.5,  # where the reference's verbalized-confidence calibrator has it
        "fitted_on": {"run": "run-1", "sha256": "ab" * 32, "mode": "few_shot", "n": 40},
        "metrics": {"nll_after": 0.25},
    }


def test_our_linear_artifact_has_the_reference_model_layout() -> None:
    cal = Calibrator("platt", ("a",), "loss", Linear((0.5,), 0.25, "identity", (2.0,), (1.0,)))
    doc = to_json(cal, fitted_on=FITTED, metrics={})
    assert doc["model"] == {
        "coefficients": [0.5],
        "intercept": 0.25,
        "link": "identity",
        "scaler": {"mean": [2.0], "std": [1.0]},
    }
    assert "temperature" not in doc
