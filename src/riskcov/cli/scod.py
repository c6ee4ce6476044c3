"""`riskcov scod` (docs/metrics-extended.md)."""

from typing import Annotated, Any

import typer

from riskcov.cli.app import WarehouseOpt, app, floats, guarded, publishes
from riskcov.cli.selection import ExperimentSeedsOpt, MethodsOpt, SplitsOpt
from riskcov.evaluation.prepared_warehouse import open_warehouse


def _fmt(value: float | None, ci: list[float] | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.4f}" + (f" [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else "")


def _draw(doc: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    inp = doc["inputs"]
    table = Table(
        title=f"SCOD of run {inp['run_id']}, {inp['method']} seed {inp['seed']} {inp['split']} "
        f"({inp['clusters']} clusters, {doc['options']['bootstrap_resamples']} resamples)",
        title_justify="left",
    )
    alphas = list(doc["rows"][0]["coverage_at_risk"]) if doc["rows"] else []
    for header in ("confidence", "c_OOD", "SCOD-AURC", "SCOD-AUGRC", *(f"Cov@Risk {a}" for a in alphas)):
        table.add_column(header, no_wrap=True)
    for r in doc["rows"]:
        ci = r["ci95"]
        table.add_row(
            r["csf"],
            f"{r['c_ood']:g}",
            _fmt(r["scod_aurc"], ci["scod_aurc"]),
            _fmt(r["scod_augrc"], ci["scod_augrc"]),
            *(_fmt(r["coverage_at_risk"][a], ci["coverage_at_risk"][a]) for a in alphas),
        )
    Console(width=160).print(table)


@app.command("scod")
@guarded
@publishes
def scod(
    input: Annotated[
        str | None,
        typer.Option("--input", help="Per-sample run file or ingested run_id.", show_default=False),
    ] = None,
    methods: MethodsOpt = None,
    experiment_seeds: ExperimentSeedsOpt = None,
    splits: SplitsOpt = None,
    c_ood: Annotated[
        str | None, typer.Option("--c-ood", help="Costs of an accepted OOD sample, default 0,0.1,...,1.")
    ] = None,
    alpha_grid: Annotated[
        str | None, typer.Option(help="Coverage@Risk budgets, default 0.05,0.1,0.2.", show_default=False)
    ] = None,
    bootstrap_resamples: Annotated[
        int, typer.Option(help="Cluster bootstrap resamples (<= 0: none).")
    ] = 1000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 42,
    as_json: Annotated[
        bool, typer.Option("--json", help="The JSON document on stdout, nothing else.")
    ] = False,
    warehouse: WarehouseOpt = None,
) -> None:
    """SCOD-AURC, SCOD-AUGRC and Coverage@Risk of ID and OOD samples ranked together, per CSF and c_OOD."""
    from riskcov.errors import UsageError
    from riskcov.evaluation import scod as scod_eval

    if input is None:
        raise UsageError("--input is required (a per-sample run file or an ingested run_id)")
    opts = scod_eval.ScodOptions(
        input=input,
        methods=methods or [],
        seeds=experiment_seeds or [],
        splits=splits or [],
        bootstrap_resamples=bootstrap_resamples,
        seed=seed,
    )
    costs, alphas = floats("--c-ood", c_ood), floats("--alpha-grid", alpha_grid)
    if costs is not None:
        opts.c_ood = costs
    if alphas is not None:
        opts.alpha_grid = alphas
    opts.check()
    with open_warehouse(warehouse) as con:
        doc = scod_eval.run(con, opts)
        doc["scod_id"] = scod_eval.store(con, doc)
    if as_json:
        from riskcov.report.artifact import dumps

        typer.echo(dumps(doc))
    else:
        _draw(doc)
