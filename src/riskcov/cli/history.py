"""`riskcov history`."""

from typing import Annotated

import typer

from riskcov.cli.app import WarehouseOpt, app, guarded
from riskcov.evaluation.prepared_warehouse import open_warehouse


@app.command()
@guarded
def history(
    metric: Annotated[
        str, typer.Option(help="A v_metrics column, e.g. aurc_full, eaurc, cmax.")
    ] = "aurc_full",
    csf: Annotated[str, typer.Option(help="The confidence function.")] = "llm",
    mode: Annotated[str | None, typer.Option(help="PHQ-8 mode, e.g. few_shot.", show_default=False)] = None,
    loss: Annotated[str | None, typer.Option(help="abs, abs_norm or given.", show_default=False)] = None,
    method: Annotated[str | None, typer.Option(help="Per-sample method.", show_default=False)] = None,
    split: Annotated[str | None, typer.Option(help="Per-sample split.", show_default=False)] = None,
    domain: Annotated[str | None, typer.Option(help="Per-sample domain.", show_default=False)] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, csv or json.")] = "table",
    warehouse: WarehouseOpt = None,
) -> None:
    """One metric of one CSF in every run, oldest first (point estimates, as v_metrics)."""
    from riskcov.warehouse import history as hist

    hist.check(metric, fmt)
    filters = {"mode": mode, "loss": loss, "method": method, "split": split, "domain": domain}
    with open_warehouse(warehouse, must_exist=True, read_only=True) as con:
        found = hist.rows(con, metric, csf, filters)
        known = [] if found else hist.csfs(con)
    if fmt != "table":
        typer.echo(hist.render(found, fmt, metric))
        return
    if not found:
        # a per-sample warehouse has no `llm` (the default): say which CSFs --csf can name
        typer.echo(f"no {csf} metrics match" + (f"; CSFs with metrics: {', '.join(known)}" if known else ""))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(*hist.COLUMNS, metric, box=None)
    for r in found:
        value = r["value"]
        table.add_row(
            *("" if r[c] is None else str(r[c]) for c in hist.COLUMNS),
            "n/a" if value is None else f"{value:.6f}",
        )
    Console(width=200).print(table)
