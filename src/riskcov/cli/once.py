"""Options of one value given once: click keeps the last of a repeated option silently
(`evaluate --confidence msp --confidence entropy` evaluated entropy alone), so riskcov's
commands refuse the repetition with one line and exit 2 (docs/cli.md)."""

from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperCommand
from typer.models import CommandFunctionType


def refusing_repeats(parser: Any, ctx: Any) -> Any:
    """The command's option parser, refusing an option of one value given more than once:
    click keeps the last one silently (`--confidence msp --confidence entropy` evaluated only
    entropy). Options documented as repeatable (lists) are click's `multiple` and pass."""
    parse = parser.parse_args

    def once(args: list[str]) -> Any:
        opts, rest, order = parse(args)
        seen: set[int] = set()
        for param in order:
            if param.param_type_name != "option" or param.multiple or param.count:
                continue
            if id(param) in seen:
                names = "/".join([*param.opts, *param.secondary_opts])
                ctx.fail(f"{names} given more than once; it takes one value (docs/cli.md)")
            seen.add(id(param))
        return opts, rest, order

    parser.parse_args = once
    return parser


class _OneCommand(TyperCommand):
    """A riskcov command: each option of one value at most once. (Its --warehouse and the
    group's, `riskcov --warehouse A runs --warehouse B`, are two options: the command's wins,
    so an alias with the group's can be overridden; docs/cli.md says so.)"""

    def make_parser(self, ctx: Any) -> Any:
        return refusing_repeats(super().make_parser(ctx), ctx)


class Commands(typer.Typer):
    """typer.Typer whose commands are _OneCommand (the app and its command groups)."""

    def command(self, *args: Any, **kwargs: Any) -> Callable[[CommandFunctionType], CommandFunctionType]:
        kwargs["cls"] = kwargs.get("cls") or _OneCommand
        return super().command(*args, **kwargs)
