"""The options that pick what is evaluated, shared by `evaluate`, `plot` and `curve`."""

from typing import Annotated, TypedDict

import typer

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


class Criteria(TypedDict):
    """Options' experiment-selection fields."""

    modes: list[str]
    methods: list[str]
    seeds: list[str]
    splits: list[str]
    domains: list[str]


def criteria(
    modes: list[str] | None,
    methods: list[str] | None,
    experiment_seeds: list[str] | None,
    splits: list[str] | None,
    domains: list[str] | None,
) -> Criteria:
    """The experiment-selection options as Options' fields (an option not given: no criterion).

    >>> criteria(["few_shot"], None, ["3"], None, None)["seeds"]
    ['3']
    """
    return Criteria(
        modes=modes or [],
        methods=methods or [],
        seeds=experiment_seeds or [],
        splits=splits or [],
        domains=domains or [],
    )
