"""The grids metrics are read at unless a command is given its own: coverages for MAE and
selective risk at a coverage, risk budgets (alpha) for Coverage@Risk, costs of a wrong accepted
unit for effective reliability. `riskcov evaluate` and
the portable queries of `riskcov sql` share them."""

from __future__ import annotations

import math

from riskcov.errors import UsageError

DEFAULT_GRID = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
DEFAULT_ALPHAS = [0.01, 0.02, 0.05, 0.1, 0.15, 0.2]
DEFAULT_COSTS = [0.0, 0.5, 1.0, 2.0, 4.0]
# the coverage and alpha grids hold at most 101 values (two decimals in [0, 1]); costs have no
# such bound, and each multiplies Φ_c's work per replicate, which the bootstrap's memory
# estimate does not count
MAX_COSTS = 100


def refuse_coverages(values: list[float]) -> None:
    """UsageError for a --coverage-grid value outside (0, 1] (evaluate's and `riskcov sql`'s).

    >>> refuse_coverages([0.5, 1.0])
    >>> refuse_coverages([0.5, 1.5])
    Traceback (most recent call last):
    riskcov.errors.UsageError: --coverage-grid value 1.5 is not in (0, 1]
    """
    for c in values:
        if not 0.0 < c <= 1.0:
            raise UsageError(f"--coverage-grid value {c!r} is not in (0, 1]")


def refuse_costs(values: list[float]) -> None:
    """UsageError for more than MAX_COSTS --costs, or one not a finite number >= 0 (evaluate's
    and `riskcov sql`'s).

    >>> refuse_costs([0.0, 4.0])
    >>> refuse_costs([1.0, math.inf])
    Traceback (most recent call last):
    riskcov.errors.UsageError: --costs value inf is not a finite number >= 0
    """
    if len(values) > MAX_COSTS:
        raise UsageError(f"--costs: {len(values):,} values; at most {MAX_COSTS}")
    for c in values:
        if not (math.isfinite(c) and c >= 0.0):
            raise UsageError(f"--costs value {c!r} is not a finite number >= 0")
