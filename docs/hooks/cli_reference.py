"""MkDocs hook: the CLI reference, rendered from the typer app when the site is built.

`docs/cli.md` holds the hand-written introduction and the marker `<!-- cli-reference -->`;
`on_page_markdown` replaces the marker with every command's usage, help and options as the
installed `riskcov.cli.app` declares them, so the page cannot drift from the code.
`render()` is the same text without MkDocs (tests/unit/test_cli_reference.py runs it).
"""

from __future__ import annotations

from typing import Any

MARKER = "<!-- cli-reference -->"


def _cell(text: str, *, code: bool = False) -> str:
    """One table cell's text on one line; a pipe outside a code span is escaped (inside one
    it cannot end the cell)."""
    text = " ".join(text.split())
    return text if code else text.replace("|", "\\|")


def _command(lines: list[str], command: Any, ctx: Any, path: str) -> None:
    """One command: a heading, its usage, its help text and a table of its parameters."""
    lines += [f"### `{path}`", "", "```", command.get_usage(ctx).strip(), "```", ""]
    if command.help:
        lines += [command.help.strip(), ""]
    rows = []
    for param in command.params:
        if getattr(param, "hidden", False):
            continue
        record = param.get_help_record(ctx)
        if record is None:
            continue
        names, text = record
        rows.append(f"| `{_cell(names, code=True)}` | {_cell(text)} |")
    if rows:
        lines += ["| option | meaning |", "|---|---|", *rows, ""]


def _walk(lines: list[str], group: Any, ctx: Any, path: str) -> None:
    for name in sorted(group.commands):
        command = group.commands[name]
        sub = type(ctx)(command, info_name=name, parent=ctx)
        _command(lines, command, sub, f"{path} {name}")
        if hasattr(command, "commands"):  # a command group such as `csf`: its commands next
            _walk(lines, command, sub, f"{path} {name}")


def commands() -> list[str]:
    """Every command path the reference shows, e.g. `riskcov csf add`, in rendering order."""
    return [line.strip("#` ") for line in render().splitlines() if line.startswith("### `")]


def render() -> str:
    """The reference as Markdown: global options, then every command, groups expanded."""
    import typer

    from riskcov.cli import app

    root = typer.main.get_command(app)
    ctx = root.make_context("riskcov", ["--help"], resilient_parsing=True)
    lines = ["## `riskcov`", "", "```", root.get_usage(ctx).strip(), "```", ""]
    lines += [(root.help or "").strip(), ""]
    records = [r for p in root.params if (r := p.get_help_record(ctx))]
    rows = [f"| `{_cell(names, code=True)}` | {_cell(text)} |" for names, text in records]
    lines += ["| option | meaning |", "|---|---|", *rows, ""]
    lines += ["## Commands", ""]
    _walk(lines, root, ctx, "riskcov")
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """MkDocs event: fill the marker of docs/cli.md."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render())
