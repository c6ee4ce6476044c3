"""An option of one value given twice is refused (exit 2, one line): click keeps the last one
silently, so `evaluate --confidence msp --confidence entropy` evaluated entropy alone. Every
option of every command is tried; the repeatable ones (lists) still take several values."""

from collections.abc import Iterator
from typing import Any

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from riskcov.cli import app


def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for name, command in sorted(group.commands.items()):
        if hasattr(command, "commands"):
            yield from _commands(command, (*path, name))
        else:
            yield (*path, name), command


ROOT = get_command(app)
SINGLE = [
    (path, option)
    for path, command in _commands(ROOT)
    for option in command.params
    if option.param_type_name == "option" and not option.multiple and not option.count
]
REPEATABLE = [
    (path, option)
    for path, command in _commands(ROOT)
    for option in command.params
    if option.param_type_name == "option" and option.multiple
]


def _twice(option: Any, first: str, second: str) -> list[str]:
    name = option.opts[0]
    return [name, name] if option.is_flag else [name, first, name, second]


def _invoke(args: list[str]) -> Any:
    return CliRunner().invoke(app, args, env={"RISKCOV_WAREHOUSE": "/nonexistent/riskcov.duckdb"})


def test_every_command_has_its_options_listed():
    assert len(SINGLE) > 60 and len(REPEATABLE) >= 10  # the walk found the commands
    assert (("evaluate",), "--confidence") in {(p, o.opts[0]) for p, o in SINGLE}
    assert (("csf", "add"), "--warehouse") in {(p, o.opts[0]) for p, o in SINGLE}


@pytest.mark.parametrize(("path", "option"), SINGLE, ids=[f"{' '.join(p)} {o.opts[0]}" for p, o in SINGLE])
def test_an_option_of_one_value_given_twice_is_refused(path, option):
    result = _invoke([*path, *_twice(option, "a1", "b2")])
    names = "/".join([*option.opts, *option.secondary_opts])
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {names} given more than once; it takes one value (docs/cli.md)\n",
    )


@pytest.mark.parametrize(
    ("path", "option"), REPEATABLE, ids=[f"{' '.join(p)} {o.opts[0]}" for p, o in REPEATABLE]
)
def test_a_repeatable_option_keeps_every_value(path, option):
    command = ROOT
    for name in path:
        command = command.commands[name]
    parser = command.make_parser(command.context_class(command, info_name=path[-1]))
    opts, _, _ = parser.parse_args(_twice(option, "a1", "b2"))
    assert opts[option.name] == ["a1", "b2"]


def test_the_groups_warehouse_given_twice_is_refused():
    result = _invoke(["--warehouse", "a.duckdb", "--warehouse", "b.duckdb", "runs"])
    assert (result.exit_code, result.stderr) == (
        2,
        "error: --warehouse given more than once; it takes one value (docs/cli.md)\n",
    )
