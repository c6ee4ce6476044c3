"""Calibrator artifacts (docs/calibration.md): read and validate one, write ours.

The format is the reference evaluator's (ai-psychiatrist: `scripts/train_confidence_calibrator.py`
writes `method`, `features`, `target` and `model`; `scripts/calibrate_verbalized_confidence.py`
writes only `method: temperature_scaling` and a top-level `temperature`), so its files load here
and ours there. Unknown keys (`training_metadata`, ...) are ignored; a `schema_version` other
than "1" is refused (a later format may mean other things by the same keys), as is an isotonic
model of more than MAX_KNOTS knots.

>>> cal = parse({"method": "temperature_scaling", "temperature": 2}, "t.json")
>>> cal.model, cal.features, cal.target
(Temperature(temperature=2.0), (), 'correctness')
>>> parse({"method": "isotonic", "features": ["token_msp"], "target": "correctness",
...        "model": {"x_thresholds": [0.5, 0.5], "y_thresholds": [0, 1]}}, "i.json")
Traceback (most recent call last):
  ...
riskcov.errors.InputError: i.json: model.x_thresholds[1] = 0.5 is not above model.x_thresholds[0] = 0.5
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NoReturn, cast

from riskcov.errors import InputError

Method = Literal["temperature_scaling", "platt", "logistic", "isotonic"]
Target = Literal["correctness", "near_correct", "loss"]
Link = Literal["sigmoid", "identity"]
METHODS: tuple[Method, ...] = ("temperature_scaling", "platt", "logistic", "isotonic")
TARGETS: tuple[Target, ...] = ("correctness", "near_correct", "loss")
LINKS: tuple[Link, ...] = ("sigmoid", "identity")
# methods of one input; logistic takes one or more
ONE_FEATURE: frozenset[str] = frozenset({"temperature_scaling", "platt", "isotonic"})
# a feature name becomes a SQL column or a JSON path: plain identifiers only
# an isotonic model's knots: applying one costs a binary search per value plus reading the
# knots once (scoring/calibration/to_sql.py); a file of millions would still cost seconds and memory
MAX_KNOTS = 100_000
SCHEMA_VERSIONS = ("1",)  # absent: the reference's artifacts, read as "1"
FEATURE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")  # \Z: "$" would match before a final newline


@dataclass(frozen=True)
class Temperature:
    """p' = sigmoid(logit(clip(p, 1e-6, 1 - 1e-6)) / temperature)."""

    temperature: float


@dataclass(frozen=True)
class Linear:
    """p = link(intercept + Σ coefficients·(x - mean)/std); identity is clipped to [0, 1]."""

    coefficients: tuple[float, ...]
    intercept: float
    link: Link
    mean: tuple[float, ...]
    std: tuple[float, ...]


@dataclass(frozen=True)
class Isotonic:
    """Linear interpolation between knots, clamped at the ends, clipped to [0, 1]."""

    x_thresholds: tuple[float, ...]
    y_thresholds: tuple[float, ...]


Model = Temperature | Linear | Isotonic


@dataclass(frozen=True)
class Calibrator:
    """A validated calibrator; `source` names the file it came from, for messages."""

    method: Method
    features: tuple[str, ...]
    target: Target
    model: Model
    source: str = ""


@dataclass(frozen=True)
class FittedOn:
    """What a calibrator was fitted on: the run, its file's sha256, the mode, the item count."""

    run: str
    sha256: str
    mode: str
    n: int


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


class _Checker:
    """Field checks that fail with one line naming the file and the field."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, message: str) -> NoReturn:
        raise InputError(f"{self.source}: {message}")

    def bad(self, field: str, value: Any, why: str) -> NoReturn:
        self.fail(f"{field} = {_show(value)} {why}")

    def get(self, obj: Mapping[str, Any], key: str, prefix: str = "") -> Any:
        if key not in obj:
            self.fail(f"{prefix}{key} is missing")
        return obj[key]

    def obj(self, value: Any, field: str) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            self.bad(field, value, "is not an object")
        return cast("Mapping[str, Any]", value)

    def number(self, value: Any, field: str) -> float:
        # JSON true/false are Python bools, which are ints: not numbers here
        if not isinstance(value, int | float) or isinstance(value, bool):
            self.bad(field, value, "is not a number")
        try:
            x = float(value)
        except OverflowError:
            x = math.inf
        if not math.isfinite(x):
            self.bad(field, value, "is not a finite number")
        return x

    def positive(self, value: Any, field: str) -> float:
        x = self.number(value, field)
        if x <= 0:
            self.bad(field, value, "is not a positive number")
        return x

    def numbers(
        self, value: Any, field: str, n: int | None = None, positive: bool = False
    ) -> tuple[float, ...]:
        if not isinstance(value, list):
            self.bad(field, value, "is not a list of numbers")
        check = self.positive if positive else self.number
        out = tuple(check(v, f"{field}[{i}]") for i, v in enumerate(value))
        if n is not None and len(out) != n:
            self.fail(f"{field} has {_count(len(out), 'number')}, the features {_count(n, 'name')}")
        return out

    def choice(self, value: Any, field: str, options: tuple[str, ...]) -> str:
        if not isinstance(value, str) or value not in options:
            self.bad(field, value, f"is not one of {', '.join(options)}")
        return value


def _features(c: _Checker, doc: Mapping[str, Any], method: str) -> tuple[str, ...]:
    if "features" not in doc and method == "temperature_scaling":
        return ()  # the reference's verbalized-confidence calibrator names none
    raw = c.get(doc, "features")
    if not isinstance(raw, list):
        c.bad("features", raw, "is not a list of signal names")
    names: list[str] = []
    for i, name in enumerate(raw):
        if not isinstance(name, str) or not FEATURE_NAME.match(name):
            c.bad(f"features[{i}]", name, "is not a signal name")
        if name in names:
            c.bad(f"features[{i}]", name, f"repeats features[{names.index(name)}]")
        names.append(name)
    if method == "temperature_scaling" and len(names) > 1:
        c.bad("features", raw, "has more than one name; temperature_scaling takes one")
    if method in ONE_FEATURE - {"temperature_scaling"} and len(names) != 1:
        c.bad("features", raw, f"does not have exactly one name; {method} takes one")
    if method == "logistic" and not names:
        c.bad("features", raw, "is empty")
    return tuple(names)


def _temperature(c: _Checker, doc: Mapping[str, Any]) -> Temperature:
    model = c.obj(doc["model"], "model") if "model" in doc else {}
    inner = c.positive(model["temperature"], "model.temperature") if "temperature" in model else None
    top = c.positive(doc["temperature"], "temperature") if "temperature" in doc else None
    if inner is None and top is None:
        c.fail("model.temperature is missing (a top-level temperature is accepted too)")
    if inner is not None and top is not None and inner != top:
        c.bad("temperature", doc["temperature"], f"disagrees with model.temperature = {inner!r}")
    return Temperature(cast(float, inner if inner is not None else top))


def _linear(c: _Checker, doc: Mapping[str, Any], n: int, target: str) -> Linear:
    model = c.obj(c.get(doc, "model"), "model")
    coefficients = c.numbers(c.get(model, "coefficients", "model."), "model.coefficients", n)
    intercept = c.number(c.get(model, "intercept", "model."), "model.intercept")
    # older reference artifacts omit the link; its trainer used identity exactly for `loss`
    link = model.get("link", "identity" if target == "loss" else "sigmoid")
    link = c.choice(link, "model.link", LINKS)
    scaler = c.obj(c.get(model, "scaler", "model."), "model.scaler")
    mean = c.numbers(c.get(scaler, "mean", "model.scaler."), "model.scaler.mean", n)
    std = c.numbers(c.get(scaler, "std", "model.scaler."), "model.scaler.std", n, positive=True)
    return Linear(coefficients, intercept, cast(Link, link), mean, std)


def _isotonic(c: _Checker, doc: Mapping[str, Any]) -> Isotonic:
    model = c.obj(c.get(doc, "model"), "model")
    xs = c.numbers(c.get(model, "x_thresholds", "model."), "model.x_thresholds")
    ys = c.numbers(c.get(model, "y_thresholds", "model."), "model.y_thresholds")
    if not xs:
        c.fail("model.x_thresholds is empty")
    if len(xs) > MAX_KNOTS:
        c.fail(f"model.x_thresholds has {len(xs):,} knots; riskcov reads at most {MAX_KNOTS:,}")
    if len(ys) != len(xs):
        c.fail(f"model.y_thresholds has {_count(len(ys), 'number')}, model.x_thresholds {len(xs)}")
    for i in range(1, len(xs)):
        if not xs[i] > xs[i - 1]:
            c.fail(
                f"model.x_thresholds[{i}] = {_show(model['x_thresholds'][i])} is not above "
                f"model.x_thresholds[{i - 1}] = {_show(model['x_thresholds'][i - 1])}"
            )
    return Isotonic(xs, ys)


def parse(doc: Any, source: str) -> Calibrator:
    """Validate a decoded calibrator JSON document; InputError names `source` and the field."""
    c = _Checker(source)
    if not isinstance(doc, dict):
        c.fail("the calibrator is not a JSON object")
    version = doc.get("schema_version", "1")
    if type(version) is int:  # the reference's trainer writes the number
        version = str(version)
    if version not in SCHEMA_VERSIONS:
        c.bad("schema_version", version, f"is not one this riskcov reads ({', '.join(SCHEMA_VERSIONS)})")
    method = cast(Method, c.choice(c.get(doc, "method"), "method", METHODS))
    features = _features(c, doc, method)
    if "target" not in doc and method == "temperature_scaling":
        target = "correctness"  # what the reference's verbalized calibration fits
    else:
        target = c.choice(c.get(doc, "target"), "target", TARGETS)
    if method == "temperature_scaling" and target == "loss":
        c.bad("target", target, "does not go with method temperature_scaling (a binary target)")
    model: Model
    if method == "temperature_scaling":
        model = _temperature(c, doc)
    elif method == "isotonic":
        model = _isotonic(c, doc)
    else:
        model = _linear(c, doc, len(features), target)
    return Calibrator(method, features, cast(Target, target), model, source)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid strict JSON")


def load(path: Path | str) -> Calibrator:
    """Read and validate a calibrator file (strict JSON: NaN and Infinity are refused)."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{source}: cannot read the calibrator: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{source}: the calibrator is not UTF-8 text") from exc
    try:
        doc = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from exc
    except ValueError as exc:
        raise InputError(f"{source}: {exc}") from exc
    except RecursionError:
        raise InputError(f"{source}: not valid JSON: nested too deeply") from None
    return parse(doc, source)


def _model_json(model: Model) -> dict[str, Any]:
    if isinstance(model, Temperature):
        return {"temperature": model.temperature}
    if isinstance(model, Isotonic):
        return {"x_thresholds": list(model.x_thresholds), "y_thresholds": list(model.y_thresholds)}
    return {
        "coefficients": list(model.coefficients),
        "intercept": model.intercept,
        "link": model.link,
        "scaler": {"mean": list(model.mean), "std": list(model.std)},
    }


def to_json(
    cal: Calibrator, *, fitted_on: FittedOn, metrics: Mapping[str, float | int | None]
) -> dict[str, Any]:
    """Our artifact: docs/calibration.md's fields, plus `fitted_on` and `metrics`.

    >>> cal = Calibrator("temperature_scaling", ("token_msp",), "correctness", Temperature(1.5))
    >>> doc = to_json(cal, fitted_on=FittedOn("r1", "ab", "few_shot", 40), metrics={"nll_after": 0.5})
    >>> doc["model"], doc["temperature"], parse(doc, "x.json").model == cal.model
    ({'temperature': 1.5}, 1.5, True)
    """
    doc: dict[str, Any] = {
        "schema_version": "1",
        "version": "1.0",
        "method": cal.method,
        "features": list(cal.features),
        "target": cal.target,
        "model": _model_json(cal.model),
        "fitted_on": {
            "run": fitted_on.run,
            "sha256": fitted_on.sha256,
            "mode": fitted_on.mode,
            "n": fitted_on.n,
        },
        "metrics": dict(metrics),
    }
    if isinstance(cal.model, Temperature):
        # the reference's verbalized-confidence calibrator keeps it at the top level
        doc["temperature"] = cal.model.temperature
    return doc


def write(
    path: Path | str, cal: Calibrator, *, fitted_on: FittedOn, metrics: Mapping[str, float | int | None]
) -> None:
    """Write our artifact as strict JSON (floats by repr, so they read back exactly)."""
    doc = to_json(cal, fitted_on=fitted_on, metrics=metrics)
    text = json.dumps(doc, indent=2, sort_keys=True, allow_nan=False)
    Path(path).write_text(text + "\n", encoding="utf-8")
