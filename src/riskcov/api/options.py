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
)


def as_list(value: Any) -> list[str]:
    """One value or several, as a list of strings."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


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
            fields[key] = [float(v) for v in value] if key.endswith("_grid") else value
        else:
            known = ", ".join([*_METRIC_OPTIONS, *_SELECTORS])
            raise UsageError(f"unknown option {key}; riskcov.evaluate takes {known}")
    opts = Options(inputs=inputs, confidence=confidence, bootstrap_resamples=resamples, seed=seed, **fields)
    opts.check()
    return opts
