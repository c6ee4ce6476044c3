"""Hypothesis profiles (docs/testing.md), loaded by tests/conftest.py: `dev` locally, `ci` under
CI=true, `thorough` for a long hunt; HYPOTHESIS_PROFILE picks one by name.

Every property test sizes its run with `examples(n)`: n examples under `dev` and `ci`, ten
times n under `thorough`.
"""

from __future__ import annotations

import os

from hypothesis import settings

from shared_folder import on_ci

settings.register_profile("dev", deadline=None)
# a CI machine keeps no example database; a failure prints the blob that replays it
settings.register_profile("ci", deadline=None, database=None, print_blob=True)
settings.register_profile("thorough", deadline=None)

PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if on_ci() else "dev")
SCALE = {"dev": 1, "ci": 1, "thorough": 10}[PROFILE]


def load() -> None:
    """Make PROFILE the default settings of every test."""
    settings.load_profile(PROFILE)


def examples(n: int) -> int:
    """The example count of a test written for n examples, under the loaded profile."""
    return n * SCALE
