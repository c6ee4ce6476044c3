"""Where a risk budget may lie, and the one line that refuses it elsewhere (docs/reliability.md).

Two kinds, one message: a Coverage@Risk grid value (`evaluate`, `scod`, `sql --alpha-grid`)
lies in [0, top], the selective risk's range (1, or 3 for PHQ-8's loss `abs`): alpha 0 asks
for the coverage at zero risk and the top one for full coverage; a level a risk bound
certifies (`risk-control --alpha`, `--risk kind:level`, `--delta`, `compare --alpha`) lies
in (0, 1), where a bound has something to certify.
"""

from __future__ import annotations

import math

from riskcov.errors import UsageError


def refuse_outside(
    flag: str, value: float, top: float = 1.0, *, strict: bool = False, note: str = ""
) -> None:
    """Refuse `value` of `flag` outside [0, top] (`strict`: (0, top)) with a UsageError naming
    the flag, the value and the range; NaN and infinities are outside too.

    >>> refuse_outside("--alpha-grid", 1.0)
    >>> refuse_outside("--alpha", 1.0, strict=True)
    Traceback (most recent call last):
    ...
    riskcov.errors.UsageError: --alpha 1.0 is outside (0, 1)
    >>> refuse_outside("--alpha-grid", float("nan"), note=", the selective risk's range")
    Traceback (most recent call last):
    ...
    riskcov.errors.UsageError: --alpha-grid nan is outside [0, 1], the selective risk's range
    """
    inside = 0.0 < value < top if strict else 0.0 <= value <= top
    if isinstance(value, bool) or not math.isfinite(value) or not inside:
        interval = f"(0, {top:g})" if strict else f"[0, {top:g}]"
        raise UsageError(f"{flag} {value!r} is outside {interval}{note}")
