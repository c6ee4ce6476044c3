"""RC curves evaluated afresh (the same SQL as `riskcov evaluate`, nothing stored), with
optional bootstrap bands: `riskcov plot --input`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import duckdb

from riskcov.bootstrap.curve_band import BandCollector
from riskcov.errors import UsageError
from riskcov.evaluation.options import Options
from riskcov.evaluation.run import run
from riskcov.report.curves import Line, line_keys, lines_from_artifact
from riskcov.report.plot import check_output, render, require_matplotlib


def check(opts: Options, ci: bool) -> None:
    """Usage errors of a plot (`opts.bootstrap_resamples` only counts with `ci`), before any work."""
    if ci and opts.bootstrap_resamples < 2:
        raise UsageError(f"--ci needs --bootstrap-resamples >= 2, not {opts.bootstrap_resamples}")
    if ci and opts.estimator != "plateau-trapezoid":
        raise UsageError(f"--ci: bootstrap bands need --estimator plateau-trapezoid, not {opts.estimator}")
    replace(opts, bootstrap_resamples=opts.bootstrap_resamples if ci else 0).check()


def evaluated_lines(
    con: duckdb.DuckDBPyConnection, opts: Options, confidences: list[str], ci: bool
) -> list[Line]:
    """Evaluate once per --confidence value and return its lines (with bands when `ci`); the
    warehouse is left as it was (inputs ingested on the fly are rolled back)."""
    check(opts, ci)
    lines: list[Line] = []
    seen: set[str] = set()
    con.execute("BEGIN TRANSACTION")
    try:
        for confidence in confidences or ["default"]:
            one = replace(
                opts, confidence=confidence, bootstrap_resamples=opts.bootstrap_resamples if ci else 0
            )
            collector = BandCollector(one.bootstrap_resamples + 1) if ci else None
            art = run(con, one, after_chunk=collector).artifact
            bands = collector.bands() if collector else {}
            for key, line in zip(line_keys(art), lines_from_artifact(art), strict=True):
                if line.label not in seen:
                    seen.add(line.label)
                    line.band = bands.get(key)
                    lines.append(line)
    finally:
        con.execute("ROLLBACK")
    return lines


def plot_run(
    con: duckdb.DuckDBPyConnection, opts: Options, confidences: list[str], ci: bool, output: Path
) -> list[Line]:
    """`riskcov plot --input ...`: evaluate with evaluate's SQL (nothing stored), then draw."""
    check_output(output)
    require_matplotlib()  # before the evaluation, so a missing extra fails at once
    lines = evaluated_lines(con, opts, confidences, ci)
    title = " · ".join([*opts.inputs, *opts.modes]) + f" ({opts.estimator})"
    render(lines, output, title)
    return lines
