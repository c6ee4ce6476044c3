"""A calibrator as ONE SQL expression, so the warehouse runs it like every other CSF (docs/calibration.md).

Literals are cast to DOUBLE from their repr (DuckDB would read 0.4 as DECIMAL; repr round-trips
the float exactly), and each formula follows the reference's order of operations:
sigmoid(z) = 1 / (1 + exp(-z)); temperature: sigmoid(ln(c / (1 - c)) / T) with
c = clip(v, 1e-6, 1 - 1e-6); linear: intercept + Σ ((x - mean) / std) * coefficient;
isotonic: numpy.interp's slope * (x - x_k) + y_k on the segment x_k <= x < x_k+1.

>>> from riskcov.scoring.calibration.artifact import Calibrator, Temperature
>>> cal = Calibrator("temperature_scaling", (), "correctness", Temperature(0.5))
>>> sql = f"SELECT round({value_sql(cal, 'CAST(0.75 AS DOUBLE)')}, 12)"
>>> duckdb.connect().execute(sql).fetchall()[0][0]  # sigmoid(2 ln 3) = 9 / 10
0.9
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping

import duckdb
import numpy as np
import numpy.typing as npt

from riskcov.errors import UsageError
from riskcov.scoring.calibration.artifact import Calibrator, Isotonic, Linear, Temperature
from riskcov.scoring.calibration.fit import EPS, default_value
from riskcov.warehouse.duckdb_helpers import registered

# numeric per-item signals stored as item_signals columns of the same name
_NUMERIC_COLUMNS = frozenset(
    {
        "llm_evidence_count",
        "keyword_evidence_count",
        "retrieval_reference_count",
        "retrieval_similarity_mean",
        "retrieval_similarity_max",
        "verbalized_confidence",
        "token_msp",
        "token_pe",
        "token_energy",
        "consistency_modal_confidence",
        "consistency_score_std",
        "consistency_na_rate",
    }
)
# known signals that are not numbers: only their null takes the default (as in the reference)
_OTHER_COLUMNS = frozenset(
    {"evidence_source", "consistency_samples", "inference_used", "inference_type", "inference_marker"}
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")  # \Z: "$" would match before a final newline


def d(x: float) -> str:
    """A DOUBLE literal that reads back as exactly `x`.

    >>> d(0.1), d(3)
    ('CAST(0.1 AS DOUBLE)', 'CAST(3.0 AS DOUBLE)')
    """
    return f"CAST({float(x)!r} AS DOUBLE)"


def _clip01(x: str) -> str:
    return f"least(greatest({x}, {d(0.0)}), {d(1.0)})"


def _sigmoid(z: str) -> str:
    # exp overflows to inf for very negative z, and 1 / inf = 0: no special case needed
    return f"{d(1.0)} / ({d(1.0)} + exp(-({z})))"


def _temperature(m: Temperature, x: str) -> str:
    c = f"least(greatest(({x}), {d(EPS)}), {d(1.0 - EPS)})"
    return _sigmoid(f"ln({c} / ({d(1.0)} - {c})) / {d(m.temperature)}")


def _linear(m: Linear, xs: list[str]) -> str:
    terms = [
        f"((({x}) - {d(mu)}) / {d(sd)}) * {d(w)}"
        for x, mu, sd, w in zip(xs, m.mean, m.std, m.coefficients, strict=True)
    ]
    z = f"{d(m.intercept)} + ({' + '.join(terms)})"
    return _sigmoid(z) if m.link == "sigmoid" else _clip01(z)


def _doubles(values: list[float]) -> str:
    """A DOUBLE[] constant, parsed from one string (a list literal of 100,000 numbers costs
    the parser seconds; the string is cast once), each number by repr, so exactly. -0.0 is
    written 0.0: the SQL literal of d() (CAST(-0.0 AS DOUBLE)) is +0.0, a list cast keeps the sign."""
    return "CAST('[" + ", ".join(repr(float(v) + 0.0) for v in values) + "]' AS DOUBLE[])"


def _isotonic(m: Isotonic, x: str) -> str:
    """numpy.interp on the knots, looked up by a binary search (log2 K steps of a list_reduce)
    instead of a CASE chain (K branches: minutes and gigabytes for 20,000 knots). Each segment
    computes exactly what the chain computed: slope * (x - x_k) + y_k with the slope from
    Python, or, knots a subnormal apart, y_k + ((x - x_k) / gap) * dy."""
    xs, ys = list(m.x_thresholds), list(m.y_thresholds)
    k = len(xs)
    slopes, gaps, rises, finite = [], [], [], []
    for (x0, y0), (x1, y1) in itertools.pairwise(zip(xs, ys, strict=True)):
        slope = (y1 - y0) / (x1 - x0)  # as numpy.interp computes it
        finite.append(math.isfinite(slope))
        slopes.append(slope if finite[-1] else 0.0)
        gaps.append(x1 - x0)
        rises.append(y1 - y0)
    steps = [0] + [2**p for p in range(max(k.bit_length() - 1, 0), -1, -1)]
    # i = how many knots are <= x (DuckDB orders NaN above every number: i = K, as the chain)
    search = (
        f"list_reduce({steps}, lambda i, s: CASE WHEN i + s <= {k} AND c.kx[i + s] <= ({x}) "
        "THEN i + s ELSE i END)"
    )
    flags = "[" + ", ".join("true" if f else "false" for f in finite) + "]::BOOLEAN[]"
    segment = (
        f"CASE WHEN i = 0 THEN {d(ys[0])} WHEN i = {k} THEN {d(ys[-1])} "
        f"WHEN c.kf[i] THEN c.ks[i] * (({x}) - c.kx[i]) + c.ky[i] "
        f"ELSE c.ky[i] + ((({x}) - c.kx[i]) / c.kg[i]) * c.kd[i] END"
    )
    # the knots' lists bound once, as the lambda parameter c (a constant written inside a
    # lambda is cast again for every chunk of rows)
    lists = (
        f"[{{'kx': {_doubles(xs)}, 'ky': {_doubles(ys)}, 'ks': {_doubles(slopes)}, "
        f"'kg': {_doubles(gaps)}, 'kd': {_doubles(rises)}, 'kf': {flags}}}]"
    )
    body = f"list_transform([{search}], lambda i: {segment})[1]"
    return _clip01(f"list_transform({lists}, lambda c: {body})[1]")


def _null_safe(xs: list[str], expr: str) -> str:
    # least/greatest skip NULLs, so a NULL input would become a clip bound: keep it NULL
    nulls = " OR ".join(f"({x}) IS NULL" for x in xs)
    return f"CASE WHEN {nulls} THEN NULL ELSE {expr} END"


def value_sql(cal: Calibrator, x: str) -> str:
    """The calibrator applied to the one value `x` (SQL): `verbalized_calibrated` and
    `calibrated:<csf>`. Takes temperature scaling, isotonic, or a one-feature platt/logistic."""
    if isinstance(cal.model, Temperature):
        return _null_safe([x], _temperature(cal.model, x))
    if isinstance(cal.model, Isotonic):
        return _null_safe([x], _isotonic(cal.model, x))
    if len(cal.features) != 1:
        raise UsageError(
            f"{cal.source}: a {cal.method} calibrator of {len(cal.features)} "
            "features cannot calibrate a single confidence value"
        )
    return _null_safe([x], _linear(cal.model, [x]))


def to_sql(cal: Calibrator, inputs: Mapping[str, str]) -> str:
    """The calibrated confidence over `inputs`, a SQL expression for each of cal.features;
    NULL when an input is NULL (feature_sql's inputs never are).

    >>> from riskcov.scoring.calibration.artifact import Linear
    >>> cal = Calibrator("logistic", ("a", "b"), "loss", Linear((0.5, 0.25), 0.5, "identity",
    ...                  (1.0, 0.0), (2.0, 1.0)))
    >>> duckdb.connect().execute(f"SELECT {to_sql(cal, {'a': '3.0', 'b': '-2.0'})}").fetchall()
    [(0.5,)]
    """
    if not cal.features:
        raise UsageError(
            f"{cal.source}: the calibrator names no features; use it as "
            "verbalized_calibrated or calibrated:<csf>"
        )
    missing = [f for f in cal.features if f not in inputs]
    if missing:
        raise ValueError(f"no SQL input for feature {missing[0]}")
    xs = [inputs[f] for f in cal.features]
    if isinstance(cal.model, Linear):
        return _null_safe(xs, _linear(cal.model, xs))
    return value_sql(cal, xs[0])


def feature_sql(name: str, *, normalise: bool = False) -> str:
    """Feature `name` over `item_signals AS s`, a null or missing value taking its default.

    Features are raw signals, as the reference extracts them; `normalise` (temperature scaling,
    whose input must be probability-like) maps verbalized_confidence to the `verbalized` CSF,
    clamp((v - 1) / 4), its default 3.0 giving that CSF's 0.5 for null. Unknown names are read
    from `extra_signals`; a value that is not a number fails the query, naming the item.

    >>> feature_sql("token_msp")
    'coalesce(CAST(s.token_msp AS DOUBLE), CAST(0.0 AS DOUBLE))'
    """
    if not _NAME.match(name):
        raise ValueError(f"{name!r} is not a signal name")
    fallback = d(default_value(name))
    where = "'participant ' || s.participant_id || ' item ' || s.item_index"
    if name in _NUMERIC_COLUMNS:
        raw = f"coalesce(CAST(s.{name} AS DOUBLE), {fallback})"
    elif name in _OTHER_COLUMNS:
        shown = f"CAST(to_json(s.{name}) AS VARCHAR)"
        raw = (
            f"CASE WHEN s.{name} IS NULL THEN {fallback} ELSE error({where} || ': item_signals.{name}"
            f" = ' || {shown} || ' is not a number (a calibrator feature)') END"
        )
    else:
        j = f"json_extract(s.extra_signals, '$.\"{name}\"')"
        raw = (
            f"CASE WHEN {j} IS NULL OR json_type({j}) = 'NULL' THEN {fallback} "
            f"WHEN json_type({j}) IN ('BIGINT', 'UBIGINT', 'DOUBLE') THEN CAST({j} AS DOUBLE) "
            f"ELSE error({where} || ': item_signals.{name} = ' || CAST({j} AS VARCHAR)"
            " || ' is not a number (a calibrator feature)') END"
        )
    if normalise and name == "verbalized_confidence":
        return _clip01(f"({raw} - {d(1.0)}) / {d(4.0)}")
    return raw


def signal_inputs(cal: Calibrator) -> dict[str, str]:
    """The `inputs` of to_sql for `calibrated`: each feature read from item_signals."""
    return {f: feature_sql(f, normalise=cal.method == "temperature_scaling") for f in cal.features}


def evaluate(con: duckdb.DuckDBPyConnection, cal: Calibrator, x: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The calibrator's SQL run by DuckDB connection `con` on the rows of matrix x (one column
    per feature; one column for a calibrator without features), in row order."""
    xm = np.asarray(x, dtype=np.float64)
    width = max(len(cal.features), 1)
    if xm.ndim != 2 or xm.shape[1] != width:
        raise ValueError(f"x has shape {xm.shape}; expected {width} columns")
    cols: dict[str, npt.NDArray[np.generic]] = {"rid": np.arange(xm.shape[0], dtype=np.int64)}
    cols.update({f"c{j}": np.ascontiguousarray(xm[:, j]) for j in range(width)})
    name = f"_riskcov_calibrate_{id(cols)}"
    expr = (
        to_sql(cal, {f: f"r.c{j}" for j, f in enumerate(cal.features)})
        if cal.features
        else value_sql(cal, "r.c0")
    )
    with registered(con, name, cols):
        rows = con.execute(f"SELECT {expr} FROM {name} AS r ORDER BY r.rid").fetchall()
    return np.array([r[0] for r in rows], dtype=np.float64)
