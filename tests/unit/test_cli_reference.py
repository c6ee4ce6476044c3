"""docs/hooks/cli_reference.py, the generated CLI reference of the docs site: every command the
typer app registers is rendered with its usage, help and options."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from riskcov.cli import app

HOOK = Path(__file__).resolve().parents[2] / "docs" / "hooks" / "cli_reference.py"


@pytest.fixture(scope="module")
def hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cli_reference", HOOK)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _registered() -> list[str]:
    """Command paths from typer's own registry (not from the click tree the hook walks)."""

    def name(info) -> str:  # typer's rule: the given name, else the function's with dashes
        return info.name or info.callback.__name__.replace("_", "-")

    paths = [f"riskcov {name(c)}" for c in app.registered_commands]
    for group in app.registered_groups:
        paths.append(f"riskcov {group.name}")
        paths += [f"riskcov {group.name} {name(c)}" for c in group.typer_instance.registered_commands]
    return sorted(paths)


def test_every_registered_command_is_rendered(hook):
    assert sorted(hook.commands()) == _registered()
    assert len(_registered()) >= 18


def test_a_command_shows_its_usage_help_and_every_option(hook):
    text = hook.render()
    section = text.split("### `riskcov evaluate`")[1].split("### `")[0]
    assert "Usage: riskcov evaluate [OPTIONS]" in section
    for option in ("--input", "--bootstrap-resamples", "--seed", "--estimator", "--warehouse", "--json"):
        assert f"| `{option}" in section, option
    assert "participant-cluster" in section.lower() or "resamples" in section


def test_the_marker_is_replaced_and_other_pages_are_left_alone(hook):
    page = "# CLI\n\nintro\n\n" + hook.MARKER + "\n"
    assert hook.MARKER not in hook.on_page_markdown(page, page=None)
    assert "### `riskcov runs`" in hook.on_page_markdown(page, page=None)
    assert hook.on_page_markdown("# other", page=None) == "# other"
    assert hook.MARKER in (HOOK.parents[1] / "cli.md").read_text()
