"""`riskcov.Warehouse`: the warehouse from Python, each method the library call its CLI command
makes (docs/python.md). Errors are the typed errors of `riskcov.errors`, not exit codes.

A file warehouse is opened for each call, or once for a `with` block (DuckDB lets one process
write a file at a time, so a notebook holding it open would lock the CLI out); an in-memory
one (`Warehouse()`) lives as long as the object.

>>> import riskcov
>>> with riskcov.Warehouse() as wh:  # losses 0, 1, 1: risks 0, 1/2, 2/3 at coverage 1/3, 2/3, 1
...     run = wh.ingest({"confidence": [0.9, 0.8, 0.3], "correct": [1, 0, 0]}, run_id="toy")
...     wh.evaluate(run, resamples=0).value("aurc_full")  # (1/2 / 2 + (1/2 + 2/3) / 2) / 3
0.2777777777777778
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from riskcov.api.options import as_list, evaluate_options
from riskcov.errors import UsageError

if TYPE_CHECKING:
    from riskcov.api.evaluation import Evaluation

DataOrPath = Any  # a DataFrame, a pyarrow Table, a mapping of columns, or a path


class Warehouse:
    """A riskcov warehouse: a DuckDB file (`Warehouse("w.duckdb")`), or in memory (`Warehouse()`).

    `with Warehouse(path) as wh:` keeps the file open for the block; without `with`, each call
    opens and closes it.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = None if path is None else Path(path)
        self._con: duckdb.DuckDBPyConnection | None = None
        self._depth = 0
        if self.path is None:
            self._con = _open(None)

    def __repr__(self) -> str:
        return f"<riskcov.Warehouse {self.path or 'in memory'}>"

    def __enter__(self) -> Warehouse:
        if self._con is None:
            self._con = _open(self.path)
        self._depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0 and self.path is not None:
            self.close()

    def close(self) -> None:
        """Close the connection (an in-memory warehouse is gone afterwards)."""
        if self._con is not None:
            self._con.close()
            self._con = None

    @contextmanager
    def connection(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """The open connection, or one for this call (a file warehouse outside `with`).

        An evaluation running a user CSF turns DuckDB's file access off for the database
        instance, one-way (docs/calibration.md): a file warehouse held open is opened again after
        it, so later calls (an ingest of a file, publish) work as they do outside `with`."""
        if self._con is not None:
            try:
                yield self._con
            finally:
                if self.path is not None and self._con is not None and files_off(self._con):
                    self.close()
                    self._con = _open(self.path)
            return
        if self.path is None:
            raise UsageError("this in-memory warehouse is closed")
        con = _open(self.path)
        try:
            yield con
        finally:
            con.close()

    def ingest(
        self,
        data: DataOrPath,
        *,
        run_id: str | None = None,
        method: str | None = None,
        seed: int | None = None,
        split: str | None = None,
        domain: str | None = None,
        replace: bool = False,
        loss: str | None = None,
        correct: str | None = None,
        cluster: str | None = None,
    ) -> str:
        """Ingest a run file, or in-memory per-sample data, and return its run_id (an unchanged
        file or the same data: the run_id it already has). `method`, `seed`, `split` and
        `domain` fill the per-sample columns the data lacks; `loss`, `correct` and `cluster`
        name the data's columns holding those (in-memory data only)."""
        from riskcov.formats import IngestOptions
        from riskcov.formats.frames import frame_kind, not_data

        options = IngestOptions(run_id=run_id, method=method, seed=seed, split=split, domain=domain)
        renames = {v: k for k, v in (("loss", loss), ("correct", correct), ("cluster", cluster)) if v}
        with self.connection() as con:
            if frame_kind(data) is None:
                if not isinstance(data, (str, os.PathLike)):
                    raise not_data(data)
                if renames:
                    raise UsageError("loss=, correct= and cluster= name columns of in-memory data")
                from riskcov.ingest import ingest_file

                if self.path is None and files_off(con):
                    raise UsageError(_NO_FILES)
                result = ingest_file(con, Path(data), replace=replace, options=options)
            else:
                from riskcov.ingest.in_memory import ingest_data

                result = ingest_data(con, data, options=options, renames=renames, replace=replace)
        assert result.run_id is not None
        return result.run_id

    def evaluate(
        self,
        run: str | Path | list[str | Path],
        *,
        confidence: str = "all",
        resamples: int = 10_000,
        seed: int = 42,
        output: str | Path | None = None,
        **options: Any,
    ) -> Evaluation:
        """Evaluate one run (or two, a paired comparison) as `riskcov evaluate` does, store it
        and return it. `run`: a run_id or a run file path; `options`: see `riskcov.evaluate`.
        A file warehouse also writes the artifact (beside it, or to `output`)."""
        from riskcov.api.evaluation import Evaluation
        from riskcov.evaluation.run import evaluate_and_store

        runs = run if isinstance(run, list) else [run]
        opts = evaluate_options([str(r) for r in runs], confidence, resamples, seed, options)
        target = Path(output) if output is not None else (Path("-") if self.path is None else None)
        with self.connection() as con:
            if self.path is None and files_off(con) and any(os.path.exists(r) for r in runs):
                raise UsageError(_NO_FILES)
            done = evaluate_and_store(con, opts, target, self.path)
        path = None if done.path is None or str(done.path) == "-" else done.path
        return Evaluation(
            done.artifact,
            done.skipped,
            warehouse=self,
            options=opts,
            evaluation_id=done.evaluation_id,
            path=path,
        )

    def runs(self) -> list[dict[str, Any]]:
        """The runs and their experiments with their counts (`riskcov runs --json`)."""
        from riskcov.warehouse.runs import list_runs

        with self.connection() as con:
            return list_runs(con)

    def sql(self, query: str, params: list[Any] | None = None) -> duckdb.DuckDBPyRelation:
        """A DuckDB relation of `query` over the warehouse's tables and views (e.g.
        `wh.sql("SELECT * FROM evaluation_metrics").df()`); needs `with` for a file warehouse,
        since the relation reads through the open connection."""
        if self._con is None:
            raise UsageError("Warehouse.sql needs the warehouse open: use `with Warehouse(path) as wh:`")
        return self._con.sql(query, params=params)

    def publish(self, to: str | Path | None = None) -> Path:
        """Refresh the BI snapshot (`riskcov publish`); return its path."""
        from riskcov.warehouse.publish import publish_snapshot, resolve_target

        if self.path is None:
            raise UsageError("an in-memory warehouse has no BI snapshot: use Warehouse(path)")
        with self.connection() as con:
            done = publish_snapshot(con, resolve_target(to, self.path))
        return Path(done.path)

    def risk_control(self, runs: list[str] | str, **options: Any) -> dict[str, Any]:
        """`riskcov risk-control`: certified thresholds per method and seed; options by their
        flag's name (methods, alphas, delta, bound, procedure, candidates, cal_split, ...)."""
        from riskcov.riskcontrol import suite

        opts = suite.Options(inputs=as_list(runs), **options)
        opts.check()
        with self.connection() as con:
            return suite.risk_control_and_store(con, opts, None)

    def ood(self, runs: list[str] | str, **options: Any) -> dict[str, Any]:
        """`riskcov ood`: OOD acceptance at fixed ID coverage, AUROC, FPR@95%TPR; options by
        their flag's name (methods, id_coverage, thresholds, split, confidence)."""
        from riskcov.riskcontrol import ood_suite

        opts = ood_suite.Options(inputs=as_list(runs), **options)
        opts.check()
        with self.connection() as con:
            return ood_suite.ood_and_store(con, opts, None)

    def compare(self, runs: list[str] | str, **options: Any) -> dict[str, Any]:
        """`riskcov compare`: one row per method, mean ± std over its seeds."""
        from riskcov.riskcontrol import compare as cmp

        opts = cmp.Options(inputs=as_list(runs), **options)
        opts.check()
        with self.connection() as con:
            return cmp.compare_in_transaction(con, opts, None)

    def calibrate(
        self,
        run: str | Path,
        *,
        method: str,
        features: list[str],
        mode: str | None = None,
        split: str | None = None,
        experiment_method: str | None = None,
        experiment_seed: int | None = None,
        domain: str | None = None,
        target: str = "correctness",
        output: str | Path | None = None,
    ) -> dict[str, Any]:
        """`riskcov calibrate`: fit a calibrator, store it; return its artifact (with its id
        under `calibrator_id`). On a per-sample run the features are score columns by CSF name
        (and `prob`), and `split` (e.g. "cal") and the other experiment fields pick the samples.

        >>> import riskcov
        >>> wh = riskcov.Warehouse()
        >>> run = wh.ingest({"confidence": [0.9, 0.6, 0.4, 0.2], "correct": [1, 1, 0, 0]}, split="cal")
        >>> wh.calibrate(run, method="isotonic", features=["confidence"], split="cal")["calibrator_id"]
        1
        """
        from riskcov.evaluation.calibrate import CalibrateOptions, calibrate, experiment_criteria

        opts = CalibrateOptions(
            input=str(run),
            mode=mode,
            method=method,
            features=list(features),
            target=target,
            output=None if output is None else Path(output),
            criteria=experiment_criteria(experiment_method, experiment_seed, split, domain),
        )
        opts.check()
        with self.connection() as con:
            done = calibrate(con, opts)
        return {**done.artifact, "calibrator_id": done.calibrator_id}


_NO_FILES = (
    "this in-memory Warehouse ran a user CSF, after which DuckDB reads no files in it "
    "(docs/calibration.md): ingest files before, or use Warehouse(path)"
)


def files_off(con: duckdb.DuckDBPyConnection) -> bool:
    """True once a user CSF has turned DuckDB's file access off for `con`'s database."""
    try:
        setting = con.execute("SELECT current_setting('enable_external_access')").fetchall()
    except duckdb.Error:  # a connection an interrupt left unusable: nothing to say
        return False
    return setting == [(False,)]


def _open(path: Path | None) -> duckdb.DuckDBPyConnection:
    """A prepared connection: the file at `path`, or an in-memory database."""
    from riskcov.evaluation.prepared_warehouse import prepare
    from riskcov.warehouse.connection import connect, quiet

    con = quiet(duckdb.connect()) if path is None else connect(path)
    try:
        prepare(con)
    except BaseException:
        con.close()
        raise
    return con
