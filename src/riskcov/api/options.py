"""The Python API's keywords as the CLI's options: `riskcov.evaluate` and `Warehouse.evaluate`
take the metric options and experiment selectors by their flag's name (docs/python.md)."""

from __future__ import annotations

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
    """
    if key.endswith("_grid") or key == "costs":
        values = [value] if isinstance(value, (str, int, float)) else value
        try:
            return [float(v) for v in values]
        except (TypeError, ValueError):
            raise UsageError(f"{key}={value!r}: give a number or a list of numbers") from None
    if key == "group" and value is not None and not isinstance(value, str):  # one column, not a list
        raise UsageError(f"group={value!r}: give one column name")
    if key == "spark_conf":
        from riskcov.evaluation.options import spark_settings

        if isinstance(value, dict):
            return spark_settings([f"{k}={v}" for k, v in value.items()])
        return spark_settings(as_list(value))
    return value


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
    opts = Options(inputs=inputs, confidence=confidence, bootstrap_resamples=resamples, seed=seed, **fields)
    opts.check()
    return opts
