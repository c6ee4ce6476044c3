"""`riskcov csf add|list|remove`: the user's named confidence functions (SQL expressions)."""

from typing import Annotated

import typer

from riskcov.cli.app import WarehouseOpt, app, guarded, publishes
from riskcov.cli.once import Commands
from riskcov.evaluation.prepared_warehouse import open_warehouse

csf_app = Commands(no_args_is_help=True, help="Your own confidence functions, as SQL expressions.")
app.add_typer(csf_app, name="csf")


@csf_app.command("add")
@guarded
@publishes
def add(
    name: Annotated[str, typer.Argument(help="a-z, 0-9 and _, starting with a letter.")],
    expression: Annotated[
        str,
        typer.Argument(
            help="SQL over item_signals' signal columns (PHQ-8 runs), or over a per-sample run's "
            "score columns by CSF name and prob."
        ),
    ],
    warehouse: WarehouseOpt = None,
) -> None:
    """Store a CSF; it is usable in evaluate (by name, in all, in secondary:) and v_metrics."""
    from riskcov.evaluation import user_csfs

    with open_warehouse(warehouse) as con:
        csf = user_csfs.add(con, name, expression)
    typer.echo(f"added csf {name}: {csf.expression}")


@csf_app.command("list")
@guarded
def list_(warehouse: WarehouseOpt = None) -> None:
    """The stored CSFs: name, expression, when added, which runs they apply to (PHQ-8, per-sample)."""
    from riskcov.scoring import user_csf_store

    with open_warehouse(warehouse) as con:
        rows = [(row, user_csf_store.kinds(con, row)) for row in user_csf_store.listing(con)]
    if not rows:
        typer.echo("no csfs yet: riskcov csf add NAME 'EXPR'")
    for row, kinds in rows:
        typer.echo(f"{row.name}\t{row.expression}\t{row.created_at}\t{kinds} runs")


@csf_app.command("remove")
@guarded
@publishes
def remove(name: str, warehouse: WarehouseOpt = None) -> None:
    """Delete a stored CSF (evaluations that used it keep their rows)."""
    from riskcov.evaluation import user_csfs

    with open_warehouse(warehouse) as con:
        user_csfs.remove(con, name)
    typer.echo(f"removed csf {name}")
