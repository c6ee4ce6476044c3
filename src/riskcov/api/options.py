"""The Python API's keywords as the CLI's options: `riskcov.evaluate` and `Warehouse.evaluate`
take the metric options and experiment selectors by their flag's name (docs/python.md)."""

from __future__ import annotations

import numbers
from typing import Any

from riskcov.errors import UsageError

_SELECTORS = {"mode": "modes", "method": "methods", "experiment_seed": "seeds", "split": "splits"}
_SELECTORS["domain"] = "domains"
_METRIC_OPTIONS = (
    "coverage_grid",
    "area_coverage",
    "alpha_grid",
    "estimator",
    "curve_points",
    "intersection_only",
    "calibration",
    "loss",
    "costs",
    "group",
    "engine",
    "spark_master",
    "spark_conf",
)


def as_list(value: Any) -> list[str]:
    """One value or several, as a list of strings."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def _metric_option(key: str, value: Any) -> Any:
    """A metric option's value as `Options` holds it: the grids and costs as floats, the Spark
    settings as a dict (a mapping, or KEY=VALUE strings as --spark-conf takes them).

    >>> _metric_option("costs", [0, "0.5"]), _metric_option("spark_conf", ["spark.x=1"])
    ([0.0, 0.5], {'spark.x': '1'})
    >>> _metric_option("costs", True)
    Traceback (most recent call last):
    riskcov.errors.UsageError: costs=True: give a number or a list of numbers
    """
    if key.endswith("_grid") or key == "costs":
        values = [value] if isinstance(value, (str, int, float)) else value
        try:
            if any(isinstance(v, bool) for v in values):  # True is an int to Python, not a cost
                raise TypeError
            return [float(v) for v in values]
        except (TypeError, ValueError):
            raise UsageError(f"{key}={value!r}: give a number or a list of numbers") from None
    if key == "area_coverage":
        return number(key, value)
    if key == "curve_points" and value is not None:
        return whole_number(key, value)
    if key == "group" and value is not None and not isinstance(value, str):  # one column, not a list
        raise UsageError(f"group={value!r}: give one column name")
    if key == "spark_conf":
        from riskcov.evaluation.options import spark_settings

        if isinstance(value, dict):
            return spark_settings([f"{k}={v}" for k, v in value.items()])
        return spark_settings(as_list(value))
    return value


def number(key: str, value: Any) -> float:
    """A keyword that takes a number, as a float: not a bool, not a string.

    >>> number("area_coverage", 1), number("area_coverage", 0.5)
    (1.0, 0.5)
    >>> number("area_coverage", True)
    Traceback (most recent call last):
    riskcov.errors.UsageError: area_coverage=True: give a number
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UsageError(f"{key}={value!r}: give a number")
    return float(value)


def whole_number(key: str, value: Any) -> int:
    """A keyword that takes a whole number (numpy's integers too), as an int.

    >>> whole_number("resamples", 200)
    200
    >>> whole_number("resamples", 2.5)
    Traceback (most recent call last):
    riskcov.errors.UsageError: resamples=2.5: give a whole number
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise UsageError(f"{key}={value!r}: give a whole number")
    return int(value)


def evaluate_options(
    inputs: list[str], confidence: str, resamples: int, seed: int, options: dict[str, Any]
) -> Any:
    """The `Options` of `riskcov evaluate` from the API's keywords: the metric options by their
    flag's name (coverage_grid=[...], area_coverage=..., ...) and the experiment selectors
    (mode, method, experiment_seed, split, domain: one value, or two for a pair)."""
    from riskcov.evaluation.options import Options

    fields: dict[str, Any] = {}
    for key, value in options.items():
        if key in _SELECTORS:
            fields[_SELECTORS[key]] = as_list(value)
        elif key in _METRIC_OPTIONS:
            fields[key] = _metric_option(key, value)
        else:
            known = ", ".join([*_METRIC_OPTIONS, *_SELECTORS])
            raise UsageError(f"unknown option {key}; riskcov.evaluate takes {known}")
    resamples, seed = whole_number("resamples", resamples), whole_number("seed", seed)
    opts = Options(inputs=inputs, confidence=confidence, bootstrap_resamples=resamples, seed=seed, **fields)
    opts.check()
    return opts
