"""`riskcov sql`: the portable metric queries for a user's own table, in an engine's SQL."""

from typing import Annotated

import typer

from riskcov.cli.app import app, floats, guarded

_DIALECT_HELP = "duckdb, spark, postgres, trino or bigquery."
_METRIC_HELP = (
    "points, summary (default), areas, oracle, mae_at_coverage, coverage_at_risk, "
    "effective_reliability, balanced (needs --label), auroc or ood_at_id_coverage; repeat for several."
)


@app.command(name="sql")
@guarded
def sql_command(
    table: Annotated[str, typer.Option(help="The per-sample table (or view) the queries read.")],
    dialect: Annotated[str, typer.Option(help=_DIALECT_HELP)] = "duckdb",
    metric: Annotated[list[str] | None, typer.Option(help=_METRIC_HELP, show_default=False)] = None,
    series: Annotated[str, typer.Option(help="SQL expression naming a curve, e.g. method.")] = "'all'",
    cluster: Annotated[str, typer.Option(help="SQL expression of the bootstrap unit.")] = "sample_id",
    confidence: Annotated[str, typer.Option(help="SQL expression of the confidence.")] = "confidence",
    loss: Annotated[str, typer.Option(help="SQL expression of the loss (e.g. 1 - correct).")] = "loss",
    abstained: Annotated[
        str | None, typer.Option(help="SQL condition of a hard abstention.", show_default=False)
    ] = None,
    label: Annotated[
        str | None,
        typer.Option(help="SQL expression of a sample's class (--metric balanced).", show_default=False),
    ] = None,
    loss_scale: Annotated[float, typer.Option(help="Divides every loss (PHQ-8's abs_norm: 3).")] = 1.0,
    samples: Annotated[
        str | None,
        typer.Option(
            help="Table of bootstrap weights (replicate, cluster, multiplicity); default: the point "
            "estimate only.",
            show_default=False,
        ),
    ] = None,
    coverage_grid: Annotated[
        str | None, typer.Option(help="MAE@coverage points, default 0.1,...,0.9.")
    ] = None,
    alpha_grid: Annotated[
        str | None, typer.Option(help="Coverage@Risk alphas, default 0.01,0.02,0.05,0.1,0.15,0.2.")
    ] = None,
    area_coverage: Annotated[float, typer.Option(help="C of AURC@C, in (0, 1].")] = 0.5,
    costs: Annotated[
        str | None,
        typer.Option(help="Effective reliability's costs of a wrong accepted unit, default 0,0.5,1,2,4."),
    ] = None,
    positive: Annotated[str, typer.Option(help="SQL condition of an AUROC positive.")] = "domain = 'id'",
    ood: Annotated[str, typer.Option(help="SQL condition of an OOD sample.")] = "domain = 'ood'",
) -> None:
    """Print the metric queries for your own table, to run in your engine (docs/spark.md)."""
    # imported here: the renderer pulls in sqlglot, which other commands need not load
    from riskcov.errors import UsageError
    from riskcov.metrics import portable
    from riskcov.metrics.grids import DEFAULT_ALPHAS, DEFAULT_COSTS, DEFAULT_GRID
    from riskcov.metrics.portable_inputs import Columns, relations

    if not 0.0 < area_coverage <= 1.0:
        raise UsageError(f"--area-coverage {area_coverage!r} is not in (0, 1]")
    cols = Columns(
        table=table,
        series=series,
        cluster=cluster,
        confidence=confidence,
        loss=loss,
        abstained=abstained,
        label=label,
        loss_scale=loss_scale,
        positive=positive,
        ood=ood,
        samples=samples,
        coverages=_values("--coverage-grid", coverage_grid, DEFAULT_GRID),
        alphas=_values("--alpha-grid", alpha_grid, DEFAULT_ALPHAS),
        costs=_values("--costs", costs, DEFAULT_COSTS),
        area_coverage=area_coverage,
    )
    rels = relations(cols)
    for name in metric or ["summary"]:
        if name not in portable.METRICS:
            raise UsageError(f"--metric {name}: one of {', '.join(portable.METRICS)}")
        if name == "balanced" and label is None:
            raise UsageError("--metric balanced needs --label, the SQL expression of a sample's class")
        typer.echo(f"-- riskcov {name} ({dialect})")
        typer.echo(portable.render(name, dialect, rels) + ";")


def _values(flag: str, text: str | None, default: list[float]) -> list[float]:
    """A grid flag's numbers, the default when it is not given; given empty, refused (as
    `riskcov evaluate` refuses it) rather than read as the default."""
    from riskcov.errors import UsageError

    values = floats(flag, text)
    if values is None:
        return list(default)
    if not values:
        raise UsageError(f"{flag} needs at least one value")
    return values
