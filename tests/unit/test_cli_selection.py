"""cli.selection.selecting: the selection options declared once, put in place of a command's
`selection` parameter (in its position) and handed to it gathered in one Selection."""

import inspect

import typer
from typer.testing import CliRunner

from riskcov.cli.selection import SELECTED_BY_OPTIONS, Selection, selecting


def _app(seen: list[Selection]) -> typer.Typer:
    app = typer.Typer()

    @app.command()
    @selecting
    def show(first: int = 0, selection: Selection = SELECTED_BY_OPTIONS, last: int = 0) -> None:
        seen.append(selection)

    @app.command()
    def other() -> None:  # a second command, so `show` is invoked by name
        pass

    return app


def test_options_arrive_gathered():
    seen: list[Selection] = []
    args = ["show", "--mode", "a", "--mode", "b", "--experiment-seed", "3", "--loss", "abs", "--last", "1"]
    assert CliRunner().invoke(_app(seen), args).exit_code == 0
    assert seen == [Selection(modes=["a", "b"], methods=[], seeds=["3"], splits=[], domains=[], loss="abs")]
    assert seen[0].fields() == {
        "modes": ["a", "b"],
        "methods": [],
        "seeds": ["3"],
        "splits": [],
        "domains": [],
        "loss": "abs",
    }


def test_options_take_the_place_of_the_selection_parameter():
    names = list(
        inspect.signature(selecting(lambda first=0, selection=SELECTED_BY_OPTIONS, last=0: None)).parameters
    )
    assert names == ["first", "modes", "methods", "experiment_seeds", "splits", "domains", "loss", "last"]
