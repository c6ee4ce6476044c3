"""`riskcov evaluate`."""

import importlib
import os
import threading
from contextlib import suppress
from pathlib import Path
from typing import Annotated

import typer

from riskcov.cli.app import WarehouseOpt, app, floats, guarded, publishes, stderr_bar
from riskcov.cli.selection import (
    SELECTED_BY_OPTIONS,
    CalibratedConfidenceOpt,
    InputsOpt,
    Selection,
    selecting,
)
from riskcov.evaluation.prepared_warehouse import open_warehouse


@app.command()
@guarded
@publishes
@selecting
def evaluate(
    inputs: InputsOpt = None,
    selection: Selection = SELECTED_BY_OPTIONS,
    confidence: CalibratedConfidenceOpt = "default",
    calibration: Annotated[
        str | None,
        typer.Option(help="Calibrator file or stored id (riskcov calibrate) for the calibrated CSFs."),
    ] = None,
    coverage_grid: Annotated[
        str | None, typer.Option(help="MAE@coverage points, default 0.1,...,0.9.")
    ] = None,
    area_coverage: Annotated[float, typer.Option(help="C of AURC@C, in (0, 1].")] = 0.5,
    bootstrap_resamples: Annotated[
        int, typer.Option(help="Participant-cluster bootstrap resamples (<= 0: none).")
    ] = 10_000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed (recorded).")] = 42,
    output: Annotated[
        Path | None,
        typer.Option(
            help="Artifact path, - for stdout (default: beside the warehouse, "
            "artifacts/<warehouse stem>_evaluation_<id>.json)."
        ),
    ] = None,
    alpha_grid: Annotated[
        str | None, typer.Option(help="Coverage@Risk budgets, default 0.01,0.02,0.05,0.1,0.15,0.2.")
    ] = None,
    curve_points: Annotated[
        int | None,
        typer.Option(help="Add curve_grid: the curve at K coverages 0..Cmax (e.g. 201).", show_default=False),
    ] = None,
    costs: Annotated[
        str | None,
        typer.Option(help="Costs c of a wrong accepted unit for effective reliability, default 0,0.5,1,2,4."),
    ] = None,
    group: Annotated[
        str | None,
        typer.Option(
            help="Metrics per group of samples: a per-sample column (label, prediction or any "
            "attribute column of the file, e.g. site).",
            show_default=False,
        ),
    ] = None,
    engine: Annotated[
        str,
        typer.Option(help="duckdb, or spark: the metrics on Apache Spark (riskcov[spark], docs/spark.md)."),
    ] = "duckdb",
    spark_master: Annotated[
        str | None,
        typer.Option(help="Spark master for --engine spark, default local[*]; SPARK_REMOTE: Spark Connect."),
    ] = None,
    spark_conf: Annotated[
        list[str] | None,
        typer.Option(
            help="KEY=VALUE: a Spark setting for --engine spark, repeatable (e.g. spark.driver.memory=8g; "
            "docs/spark.md gives the defaults).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The artifact on stdout, nothing else.")] = False,
    warehouse: WarehouseOpt = None,
) -> None:
    """RC curves, AURC/AUGRC, MAE@coverage, oracle metrics and bootstrap CIs for 1-2 inputs."""
    # An evaluation multiplies no matrices: the OpenBLAS thread pool that numpy's import would
    # start only costs CPU (docs/performance.md, start-up). A setting of the user's stands.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # numpy.ma too: DuckDB imports it to fetch a column with NULLs (every evaluation's MAE past
    # Cmax), which would otherwise hold up a replicate worker
    pipeline = _import_beside("riskcov.evaluation.run", "numpy.ma")
    from riskcov.evaluation.options import Options, spark_settings

    opts = Options(
        inputs=inputs or [],
        **selection.fields(),
        confidence=confidence,
        area_coverage=area_coverage,
        bootstrap_resamples=bootstrap_resamples,
        seed=seed,
        curve_points=curve_points,
        calibration=calibration,
        group=group,
        engine=engine,
        spark_master=spark_master,
        spark_conf=spark_settings(spark_conf or []),
        block_pool=True,  # the process ends with the instance (docs/performance.md, the block pool)
        restore_connection=False,  # and the connection closes with the command
    )
    grid = floats("--coverage-grid", coverage_grid)
    alphas = floats("--alpha-grid", alpha_grid)
    if grid is not None:
        opts.coverage_grid = grid
    if alphas is not None:
        opts.alpha_grid = alphas
    cost_list = floats("--costs", costs)
    if cost_list is not None:
        opts.costs = cost_list
    opts.check()  # usage errors before the warehouse is opened
    with (
        open_warehouse(warehouse) as con,
        stderr_bar(opts.bootstrap_resamples >= 1000, "bootstrap", opts.bootstrap_resamples) as update,
    ):
        pipeline.join()
        from riskcov.evaluation.run import evaluate_and_store  # an import that failed there fails here

        progress = (lambda done, total: update(completed=done)) if update else None
        result = evaluate_and_store(con, opts, output, warehouse, progress)
    for name, why in result.skipped.items():
        typer.echo(f"skipped confidence {name}: {why}", err=True)
    if as_json or str(result.path) == "-":
        from riskcov.report.artifact import dumps

        typer.echo(dumps(result.artifact))
    else:
        from riskcov.report import summary

        summary.show(result.artifact, str(result.path))


def _import_beside(*modules: str) -> threading.Thread:
    """Import `modules` on a thread, started now: the pipeline's imports (numpy's most of all) run
    while the warehouse opens, as DuckDB releases the GIL while it opens the file and runs the
    preparation's statements (docs/performance.md, start-up). The caller joins it and imports
    the first module again, which raises whatever the thread's import raised."""
    thread = threading.Thread(target=_quietly_import, args=modules, name="riskcov-import", daemon=True)
    thread.start()
    return thread


def _quietly_import(*modules: str) -> None:
    for module in modules:
        with suppress(BaseException):  # raised again by the caller's own import
            importlib.import_module(module)
