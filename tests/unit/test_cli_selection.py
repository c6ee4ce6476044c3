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
        "estimator": "plateau-trapezoid",
        "intersection_only": False,
    }


def test_estimator_and_intersection_arrive_gathered():
    seen: list[Selection] = []
    args = ["show", "--estimator", "item-step", "--intersection-only"]
    assert CliRunner().invoke(_app(seen), args).exit_code == 0
    assert (seen[0].estimator, seen[0].intersection_only) == ("item-step", True)


def test_options_take_the_place_of_the_selection_parameter():
    names = list(
        inspect.signature(selecting(lambda first=0, selection=SELECTED_BY_OPTIONS, last=0: None)).parameters
    )
    assert names == [
        "first",
        "modes",
        "methods",
        "experiment_seeds",
        "splits",
        "domains",
        "loss",
        "estimator",
        "intersection_only",
        "last",
    ]


# what `riskcov evaluate|plot|curve --help` says of each shared option: (help, default)
CONFIDENCES = "default, all, a CSF name, secondary:<a>+<b>:average|product, sql:EXPR"
SHARED_HELP = {
    "--estimator": ("plateau-trapezoid, item-step or item-trapezoid.", "plateau-trapezoid"),
    "--intersection-only": ("Paired: compare the overlapping participants.", False),
    "--mode": ("PHQ-8 experiment mode: once for all inputs or once per input.", None),
    "--experiment-seed": ("Per-sample experiment seed (--seed is the bootstrap's).", None),
}
CONFIDENCE_HELP = {
    "evaluate": (f"{CONFIDENCES}, calibrated, verbalized_calibrated or calibrated:<csf>.", "default"),
    "curve": (f"{CONFIDENCES}.", "default"),
    "plot": (f"{CONFIDENCES}; repeat for more.", None),
}


def test_the_three_commands_say_the_same_of_each_shared_option():
    from riskcov.cli import app

    group = typer.main.get_command(app)
    for name, (confidence_help, confidence_default) in CONFIDENCE_HELP.items():
        params = {p.opts[0]: p for p in group.commands[name].params}  # type: ignore[attr-defined]
        said = {flag: (params[flag].help, params[flag].default) for flag in SHARED_HELP}
        assert said == SHARED_HELP, name
        assert (params["--confidence"].help, params["--confidence"].default) == (
            confidence_help,
            confidence_default,
        ), name
