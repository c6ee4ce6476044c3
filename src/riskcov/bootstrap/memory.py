"""The memory a bootstrap will need, estimated before it starts, and refused when the machine
cannot give it (a run that cannot fit would otherwise swap for minutes, then be killed).

The estimate is linear in resamples x series x metrics: each replicate keeps every metric's
value per series until the intervals are taken. PER_VALUE is the peak RSS per such value
measured on the example run (41 participants, default confidence and grids: 100,000 ->
200,000 resamples added 362 MB for two series of 48 metric values each: 38 bytes a value),
BASE the process with its inputs.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from riskcov.errors import ResourceError

PER_VALUE = 40  # bytes of peak RSS per (resample, series, metric value)
BASE = 200 * 2**20


def metric_values(n_coverages: int, n_alphas: int) -> int:
    """Values per replicate and series: 12 scalar metrics, MAE and its achieved coverage per
    coverage, Coverage@Risk's coverage, risk and threshold per alpha."""
    return 12 + 2 * n_coverages + 3 * n_alphas


def needed(resamples: int, series: int, n_coverages: int, n_alphas: int) -> int:
    """Bytes the evaluation will need at its peak (an estimate; see the module docstring)."""
    return BASE + resamples * series * metric_values(n_coverages, n_alphas) * PER_VALUE


def available() -> int | None:
    """Bytes this process can still use: MemAvailable, or less under a cgroup limit; None
    when the system does not say."""
    found: list[int] = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = int(Path("/sys/fs/cgroup/memory.current").read_text().strip())
        if limit != "max":
            found.append(int(limit) - used)
    except (OSError, ValueError):
        pass
    if not found and hasattr(os, "sysconf"):
        with contextlib.suppress(OSError, ValueError):
            found.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    return min(found) if found else None


def _gb(n: float) -> str:
    return f"{n / 2**30:.1f} GB"


def check(resamples: int, series: int, n_coverages: int, n_alphas: int) -> None:
    """ResourceError (exit 6) when the bootstrap cannot fit in the memory available now."""
    if resamples <= 0 or series <= 0:
        return
    need = needed(resamples, series, n_coverages, n_alphas)
    have = available()
    if have is None or need <= have:
        return
    per = series * metric_values(n_coverages, n_alphas) * PER_VALUE
    fits = max((have - BASE) // per, 0)
    raise ResourceError(
        f"--bootstrap-resamples {resamples:,} for {series} series needs about {_gb(need)} of memory; "
        f"{_gb(have)} is available: use at most about {fits:,} resamples (or fewer confidences); "
        "nothing was stored"
    )
