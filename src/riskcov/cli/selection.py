"""The options that pick what is evaluated and how, shared by `evaluate`, `plot` and `curve`:
each declared once here, so their help texts cannot drift apart."""

import functools
import inspect
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Annotated, Any, TypeVar

import typer

T = TypeVar("T")

InputsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--input",
        help="Run file (ingested on the fly) or an ingested run_id; twice to compare.",
        show_default=False,
    ),
]
ModesOpt = Annotated[
    list[str] | None,
    typer.Option("--mode", help="PHQ-8 experiment mode: once for all inputs or once per input."),
]
MethodsOpt = Annotated[
    list[str] | None,
    typer.Option("--method", help="Per-sample experiment method (once, or once per input)."),
]
ExperimentSeedsOpt = Annotated[
    list[str] | None,
    typer.Option("--experiment-seed", help="Per-sample experiment seed (--seed is the bootstrap's)."),
]
SplitsOpt = Annotated[
    list[str] | None, typer.Option("--split", help="Per-sample experiment split, e.g. test.")
]
DomainsOpt = Annotated[
    list[str] | None, typer.Option("--domain", help="Per-sample experiment domain, id or ood.")
]
LossOpt = Annotated[
    str | None,
    typer.Option(
        help="abs or abs_norm (PHQ-8; default abs_norm), given (per-sample; the default).",
        show_default=False,
    ),
]
EstimatorOpt = Annotated[str, typer.Option(help="plateau-trapezoid, item-step or item-trapezoid.")]
IntersectionOpt = Annotated[
    bool, typer.Option("--intersection-only", help="Paired: compare the overlapping participants.")
]
# the confidences every evaluating command reads; the calibrated ones need --calibration,
# which only evaluate takes
CONFIDENCES = "default, all, a CSF name, secondary:<a>+<b>:average|product, sql:EXPR"
ConfidenceOpt = Annotated[str, typer.Option(help=f"{CONFIDENCES}.")]
CalibratedConfidenceOpt = Annotated[
    str, typer.Option(help=f"{CONFIDENCES}, calibrated, verbalized_calibrated or calibrated:<csf>.")
]
ConfidencesOpt = Annotated[
    list[str] | None, typer.Option(help=f"{CONFIDENCES}; repeat for more.", show_default=False)
]


@dataclass(frozen=True)
class Selection:
    """The experiment-selection options of one invocation, named as Options' fields (an option
    not given: no criterion)."""

    modes: list[str]
    methods: list[str]
    seeds: list[str]
    splits: list[str]
    domains: list[str]
    loss: str | None
    estimator: str = "plateau-trapezoid"
    intersection_only: bool = False

    def fields(self) -> dict[str, Any]:
        """Options' keyword arguments.

        >>> Selection(["few_shot"], [], ["3"], [], [], None).fields()["seeds"]
        ['3']
        """
        return asdict(self)


# a command's `selection` default: `selecting` replaces it by the options' values
SELECTED_BY_OPTIONS = Selection([], [], [], [], [], None)

# the options `selecting` puts in place of a command's `selection` parameter, in this order,
# with their defaults
OPTIONS: tuple[tuple[str, Any, Any], ...] = (
    ("modes", ModesOpt, None),
    ("methods", MethodsOpt, None),
    ("experiment_seeds", ExperimentSeedsOpt, None),
    ("splits", SplitsOpt, None),
    ("domains", DomainsOpt, None),
    ("loss", LossOpt, None),
    ("estimator", EstimatorOpt, SELECTED_BY_OPTIONS.estimator),
    ("intersection_only", IntersectionOpt, SELECTED_BY_OPTIONS.intersection_only),
)


def selecting(command: Callable[..., T]) -> Callable[..., T]:
    """The command with the selection options (OPTIONS, declared once here) in place of its
    parameter `selection: Selection`, which it then receives with their values gathered."""
    signature = inspect.signature(command)
    params: list[inspect.Parameter] = []
    for p in signature.parameters.values():
        if p.name != "selection":
            params.append(p)
            continue
        params += [
            inspect.Parameter(n, p.POSITIONAL_OR_KEYWORD, default=d, annotation=t) for n, t, d in OPTIONS
        ]

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> T:
        given = {n: kwargs.pop(n, d) for n, _, d in OPTIONS}
        selection = Selection(
            modes=given["modes"] or [],
            methods=given["methods"] or [],
            seeds=given["experiment_seeds"] or [],
            splits=given["splits"] or [],
            domains=given["domains"] or [],
            loss=given["loss"],
            estimator=given["estimator"],
            intersection_only=given["intersection_only"],
        )
        return command(*args, selection=selection, **kwargs)

    hints = {k: v for k, v in command.__annotations__.items() if k != "selection"}
    run.__annotations__ = {**hints, **{n: t for n, t, _ in OPTIONS}}
    run.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    return run
