"""Without the shared fixtures a test skips with its reason, except under CI=true, where it fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared_folder import missing, on_ci


@pytest.mark.parametrize(
    ("value", "ci"), [("true", True), ("1", True), ("TRUE", True), ("", False), ("false", False)]
)
def test_ci_is_read_from_the_environment(monkeypatch, value, ci):
    monkeypatch.setenv("CI", value)
    assert on_ci() is ci


def test_a_missing_folder_skips_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"/nowhere/fixtures is not available"):
        missing(Path("/nowhere/fixtures"))


def test_a_missing_folder_fails_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(
        pytest.fail.Exception, match=r"/nowhere/fixtures is not available .*CI=true needs them"
    ):
        missing(Path("/nowhere/fixtures"), module=True)
