"""`riskcov risk-control`, `riskcov ood` and `riskcov compare` (docs/risk-control.md)."""

from pathlib import Path
from typing import Annotated, Any

import typer

from riskcov.cli.app import WarehouseOpt, app, floats, guarded, publishes
from riskcov.errors import UsageError
from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.resources import sql_list

InputsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--input",
        help="Per-sample run file (ingested on the fly) or ingested run_id; repeatable.",
        show_default=False,
    ),
]
MethodsOpt = Annotated[
    list[str] | None, typer.Option("--method", help="Only these methods (repeatable; default all).")
]
ConfidenceOpt = Annotated[
    str | None,
    typer.Option(help="Score column's CSF name (default `confidence`, or the only one).", show_default=False),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="The JSON document on stdout, nothing else.")]
OutputOpt = Annotated[
    Path | None, typer.Option(help="Also write the JSON document to this file.", show_default=False)
]


def _emit(doc: dict[str, Any], as_json: bool, draw: Any) -> None:
    if as_json:
        from riskcov.report.artifact import dumps

        typer.echo(dumps(doc))
        return
    from rich.console import Console

    draw(doc, Console(width=140))


def _need(flag: str, values: list[float] | None) -> list[float]:
    if values is None:
        raise UsageError(f"{flag} needs comma-separated numbers")
    return values


@app.command("risk-control")
@guarded
@publishes
def risk_control(
    inputs: InputsOpt = None,
    methods: MethodsOpt = None,
    alpha: Annotated[str, typer.Option(help="Risk levels, comma-separated.")] = "0.05,0.1,0.15,0.2",
    delta: Annotated[float, typer.Option(help="Failure probability of the certificate.")] = 0.1,
    bound: Annotated[
        str, typer.Option(help="hoeffding-bentkus, hoeffding or binomial (0/1 losses).")
    ] = "hoeffding-bentkus",
    procedure: Annotated[
        str,
        typer.Option(
            "--procedure",
            "--fwer",
            help="FWER control: fixed-sequence, bonferroni, holm or split-fixed-sequence.",
        ),
    ] = "fixed-sequence",
    candidates: Annotated[int, typer.Option(help="Candidate thresholds G (coverage g/G).")] = 20,
    split_seed: Annotated[
        int, typer.Option(help="split-fixed-sequence: the seed that halves the cal samples.")
    ] = 0,
    risks: Annotated[
        list[str] | None,
        typer.Option(
            "--risk",
            help="Risks certified together, kind:level (selective, generalized, coverage_loss); repeatable.",
            show_default=False,
        ),
    ] = None,
    cal_split: Annotated[str, typer.Option(help="Split the thresholds are fit on.")] = "cal",
    test_split: Annotated[str, typer.Option(help="Split they are checked on.")] = "test",
    violation_margin: Annotated[
        float | None, typer.Option(help="Also count risk > alpha*(1+m).", show_default=False)
    ] = None,
    confidence: ConfidenceOpt = None,
    group: Annotated[
        str | None,
        typer.Option(
            help="Also each group's test coverage at every threshold and the gap between the groups: "
            "a per-sample column (label, prediction or an attribute, e.g. site).",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOpt = False,
    output: OutputOpt = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """Certified, uncertified and CRC thresholds per method and seed; violation rates over seeds."""
    from riskcov.riskcontrol import render, suite

    opts = suite.Options(
        inputs=inputs or [],
        methods=methods or [],
        alphas=_need("--alpha", floats("--alpha", alpha)),
        delta=delta,
        bound=bound,
        procedure=procedure,
        candidates=candidates,
        cal_split=cal_split,
        test_split=test_split,
        violation_margin=violation_margin,
        confidence=confidence,
        split_seed=split_seed,
        risks=risks or [],
        group=group,
    )
    opts.check()  # usage errors before the warehouse is opened
    with open_warehouse(warehouse) as con:
        doc = suite.risk_control_and_store(con, opts, output)
    _emit(doc, as_json, render.risk_control)


@app.command("ood")
@guarded
@publishes
def ood(
    inputs: InputsOpt = None,
    methods: MethodsOpt = None,
    id_coverage: Annotated[str, typer.Option(help="ID coverage targets, comma-separated.")] = ",".join(
        f"{c:g}" for c in sql_list("rc_ood_default_targets")
    ),
    thresholds: Annotated[
        str | None, typer.Option(help="Also DAR at these thresholds, comma-separated.", show_default=False)
    ] = None,
    split: Annotated[str, typer.Option(help="Split whose id and ood experiments are compared.")] = "test",
    confidence: ConfidenceOpt = None,
    as_json: JsonOpt = False,
    output: OutputOpt = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """OOD acceptance at fixed ID coverage, DAR, AUROC and FPR@95%TPR per method and seed."""
    from riskcov.riskcontrol import ood_suite, render

    opts = ood_suite.Options(
        inputs=inputs or [],
        methods=methods or [],
        id_coverage=_need("--id-coverage", floats("--id-coverage", id_coverage)),
        thresholds=floats("--thresholds", thresholds) or [],
        split=split,
        confidence=confidence,
    )
    opts.check()
    with open_warehouse(warehouse) as con:
        doc = ood_suite.ood_and_store(con, opts, output)
    _emit(doc, as_json, render.ood)


FORMATS = ("table", "markdown", "csv", "json")


@app.command("compare")
@guarded
@publishes
def compare(
    inputs: InputsOpt = None,
    methods: MethodsOpt = None,
    alpha: Annotated[float, typer.Option(help="Risk level of Coverage@Risk and the violation rate.")] = 0.1,
    id_coverage: Annotated[
        str, typer.Option(help="ID coverages of the OOD columns, comma-separated ('' for none).")
    ] = "0.7,0.8",
    delta: Annotated[float, typer.Option(help="Certificate's failure probability.")] = 0.1,
    bound: Annotated[str, typer.Option(help="Certificate's bound.")] = "hoeffding-bentkus",
    procedure: Annotated[str, typer.Option(help="Certificate's procedure.")] = "fixed-sequence",
    candidates: Annotated[int, typer.Option(help="Candidate thresholds G.")] = 20,
    cal_split: Annotated[str, typer.Option(help="Split the certificate is fit on.")] = "cal",
    test_split: Annotated[str, typer.Option(help="Split every column is measured on.")] = "test",
    confidence: ConfidenceOpt = None,
    fmt: Annotated[str, typer.Option("--format", help="table, markdown, csv or json.")] = "table",
    output: OutputOpt = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """The method comparison table: one row per method, mean ± std over its seeds."""
    from riskcov.riskcontrol import compare as cmp
    from riskcov.riskcontrol import render

    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt}: expected one of {', '.join(FORMATS)}")
    opts = cmp.Options(
        inputs=inputs or [],
        methods=methods or [],
        alpha=alpha,
        id_coverage=floats("--id-coverage", id_coverage) or [],
        delta=delta,
        bound=bound,
        procedure=procedure,
        candidates=candidates,
        cal_split=cal_split,
        test_split=test_split,
        confidence=confidence,
    )
    opts.check()
    with open_warehouse(warehouse) as con:
        doc = cmp.compare_in_transaction(con, opts, output)
    if fmt == "markdown":
        typer.echo(render.compare_markdown(doc))
    elif fmt == "csv":
        typer.echo(render.compare_csv(doc))
    else:
        _emit(doc, fmt == "json", render.compare_table)
