"""The CSFs a PHQ-8 evaluation's `--confidence` names, beyond the registry's: the user's stored
CSFs, `sql:EXPR`, and the calibrated ones of docs/calibration.md (`--calibration FILE|ID`).

Every choice is SQL over `item_signals AS s` (a calibrator too: riskcov.scoring.calibration.to_sql), so
the point estimate and every bootstrap replicate run the same SQL as every built-in CSF.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import duckdb

from riskcov.errors import UsageError
from riskcov.scoring import csf
from riskcov.scoring.csf import BASE, DEFAULT, Csf
from riskcov.scoring.user_csf_store import CALIBRATED, as_csf, stored

if TYPE_CHECKING:  # the calibration modules load only with --calibration (CLI start-up)
    from riskcov.scoring.calibration.artifact import Calibrator

USES_CALIBRATION = "--confidence calibrated, verbalized_calibrated, calibrated:<csf> or all"


@dataclass
class Choice:
    """The chosen CSFs; whether unsupported ones are skipped (`all`), those skipped already, the
    calibrator as the artifact records it, and whether user SQL runs (external access goes off)."""

    csfs: list[Csf]
    skip_unsupported: bool = False
    skipped: dict[str, str] = field(default_factory=dict)
    calibration: dict[str, Any] | None = None
    user_sql: bool = False


def _quote(text: str) -> str:
    return text.replace("'", "''")


def _finite(name: str, expr: str) -> str:
    return Csf(name, expr).problem_sql()


def _lacking(cal: Calibrator, expr: str) -> str:
    """`calibrated`'s problem SQL: a feature no item of the experiment has (docs/calibration.md gives a
    missing key of one item its default, but a feature the whole run lacks is an error)."""
    whens = [
        f"WHEN NOT EXISTS (SELECT 1 FROM item_signals AS x WHERE x.experiment_id = i.experiment_id"
        f" AND list_contains(x.signal_keys, '{f}')) THEN 'no item has signal {f}, a feature of "
        f"calibrator {_quote(cal.source)}'"
        for f in cal.features
    ]
    return f"coalesce(CASE {' '.join(whens)} END, {_finite('calibrated', expr)})"


def calibrated(selector: str, cal: Calibrator, user: dict[str, Csf]) -> Csf:
    """`verbalized_calibrated`, `calibrated` or `calibrated:<csf>` as a CSF; UsageError when the
    calibrator cannot apply."""
    from riskcov.scoring.calibration.artifact import Linear
    from riskcov.scoring.calibration.to_sql import signal_inputs, to_sql, value_sql

    if selector == "verbalized_calibrated":
        if cal.method != "temperature_scaling":
            raise UsageError(
                f"--confidence verbalized_calibrated needs a temperature_scaling calibrator; "
                f"{cal.source} is {cal.method}"
            )
        return Csf(selector, value_sql(cal, BASE["verbalized"].expression), ("verbalized_confidence",))
    if selector == "calibrated":
        expr = to_sql(cal, signal_inputs(cal))
        return Csf(selector, expr, problem=_lacking(cal, expr))
    inner_name = selector.removeprefix("calibrated:")
    if isinstance(cal.model, Linear):
        raise UsageError(
            f"--confidence {selector}: a {cal.method} calibrator cannot calibrate one CSF's value "
            f"(temperature_scaling or isotonic can); {cal.source} is {cal.method}"
        )
    if inner_name.startswith(("calibrated", "verbalized_calibrated", "sql:")):
        raise UsageError(f"--confidence {selector}: calibrate a base or stored CSF, not {inner_name}")
    inner = csf.get(inner_name, user)
    expr = value_sql(cal, inner.expression)
    problem = None if inner.problem is None else f"coalesce({inner.problem}, {_finite(selector, expr)})"
    return Csf(selector, expr, inner.required, inner.null_is_error, problem)


def _is_calibrated(selector: str) -> bool:
    return selector in CALIBRATED or selector.startswith("calibrated:")


def choose(con: duckdb.DuckDBPyConnection, selector: str, calibration: str | None) -> Choice:
    """The CSFs of `selector` for PHQ-8 inputs; `calibration` is `--calibration FILE|ID`."""
    if selector.startswith("sql:"):
        if calibration is not None:
            raise UsageError(f"--calibration is used only by {USES_CALIBRATION}")
        from riskcov.scoring.user_csf import compile_expression, signal_columns  # imports sqlglot

        compiled = compile_expression(selector[4:], signal_columns(con))
        return Choice([as_csf(selector, compiled)], user_sql=True)
    if selector == "default" and calibration is None:
        return Choice([BASE[n] for n in DEFAULT])
    user = stored(con)
    if calibration is not None and not (_is_calibrated(selector) or selector == "all"):
        raise UsageError(f"--calibration is used only by {USES_CALIBRATION}")
    if _is_calibrated(selector) and calibration is None:
        raise UsageError(f"--confidence {selector} needs --calibration FILE|ID (a calibrator)")
    cal, ref = None, None
    if calibration is not None:
        from riskcov.scoring.calibration.store import resolve

        cal, ref = resolve(con, calibration)
    if selector == "default":
        return Choice([BASE[n] for n in DEFAULT])
    if selector == "all":
        every = {**BASE, **user}
        skipped: dict[str, str] = {}
        for name in CALIBRATED if cal is not None else ():
            assert cal is not None
            try:
                every[name] = calibrated(name, cal, user)
            except UsageError as exc:
                skipped[name] = str(exc)
        return Choice([every[n] for n in sorted(every)], True, skipped, ref, bool(user))
    if _is_calibrated(selector):
        assert cal is not None
        chosen = calibrated(selector, cal, user)
    else:
        chosen = csf.get(selector, user)
    return Choice([chosen], calibration=ref, user_sql=chosen.problem is not None)


def choose_samples(
    con: duckdb.DuckDBPyConnection, selector: str, calibration: str | None, columns: list[list[str]]
) -> Choice:
    """The CSFs of `selector` for per-sample inputs (`columns`: each input's score columns): a
    score column, `default`/`all`, or with `--calibration` the calibrated CSFs of a calibrator
    whose features are score columns by CSF name (or `prob`): `calibrated`, `calibrated:<csf>`."""
    if calibration is None:
        if _is_calibrated(selector) or selector == "verbalized_calibrated":
            raise UsageError(f"--confidence {selector} needs --calibration FILE|ID (a calibrator)")
        return _sample_csfs(con, selector, columns)
    if selector not in ("all", "calibrated") and not selector.startswith("calibrated:"):
        raise UsageError(
            "--calibration is used on per-sample runs only by --confidence calibrated, "
            "calibrated:<csf> or all"
        )
    from riskcov.scoring.calibration.store import resolve

    cal, ref = resolve(con, calibration)
    if selector == "all":
        chosen, _ = csf.select_samples(selector, columns)
        try:
            chosen.append(_sample_calibrated("calibrated", cal, columns))
        except UsageError as exc:
            return Choice(chosen, True, {"calibrated": str(exc)}, ref)
        return Choice(chosen, True, {}, ref)
    return Choice([_sample_calibrated(selector, cal, columns)], calibration=ref)


def _sample_calibrated(selector: str, cal: Calibrator, columns: list[list[str]]) -> Csf:
    from riskcov.scoring.calibration.artifact import Linear
    from riskcov.scoring.calibration.to_sql import to_sql, value_sql
    from riskcov.scoring.sample_expressions import column_sql, expression_csf

    if selector == "calibrated":
        expr = to_sql(cal, {f: column_sql(f) for f in cal.features})
        return expression_csf(selector, expr, cal.features)
    inner = selector.removeprefix("calibrated:")
    if isinstance(cal.model, Linear):
        raise UsageError(
            f"--confidence {selector}: a {cal.method} calibrator cannot calibrate one CSF's value "
            f"(temperature_scaling or isotonic can); {cal.source} is {cal.method}"
        )
    csf.select_samples(inner, columns)  # a score column of every input, or the usual error
    return expression_csf(selector, value_sql(cal, column_sql(inner)), [inner])


def _sample_csfs(con: duckdb.DuckDBPyConnection, selector: str, columns: list[list[str]]) -> Choice:
    """Score columns, `sql:EXPR` over them, or the user's stored CSFs of per-sample runs (by
    name; under `all`, those whose score columns every input has)."""
    from riskcov.scoring.sample_expressions import PROB, expression_csf
    from riskcov.scoring.user_csf_store import stored_for_samples

    shared = set.intersection(*(set(c) for c in columns))
    if selector.startswith("sql:"):
        from riskcov.scoring.user_csf import compile_for_samples

        compiled = compile_for_samples(selector[4:])
        return Choice([expression_csf(selector, compiled.sql, compiled.columns)], user_sql=True)
    user = stored_for_samples(con) if selector not in shared else {}
    if selector in user:
        return Choice([user[selector]], user_sql=True)
    chosen, skip = csf.select_samples(selector, columns)
    if selector != "all":
        return Choice(chosen, skip)
    usable = [c for n, c in sorted(user.items()) if set(c.required) <= shared | {PROB} and n not in shared]
    return Choice(chosen + usable, skip or bool(usable), user_sql=bool(usable))
