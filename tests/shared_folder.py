"""The shared folder beside the repository (the reference fixtures): where it is, and what a
test does without it: skip with the reason in the summary, or, under CI=true, fail."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
FIXTURES = SHARED / "fixtures"


def on_ci() -> bool:
    """CI=true (or 1, yes), as CI services and .ci/run set it."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def missing(what: Path, *, module: bool = False) -> NoReturn:
    """Skip (a module's tests, with `module`) because `what` is not there; under CI, fail."""
    reason = f"{what} is not available (the shared reference fixtures beside the repository)"
    if on_ci():
        pytest.fail(f"{reason}; CI=true needs them", pytrace=False)
    pytest.skip(reason, allow_module_level=module)
