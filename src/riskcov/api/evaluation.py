"""`riskcov.Evaluation`: what the Python API returns, the artifact and views of it (docs/python.md).

The tables (`to_arrow`, `to_pandas`, `to_polars`) hold the rows the warehouse stores in
`evaluation_metrics`: one per (input, CSF, metric) with its value and 95% CI (`input` is
`input_0`, `input_1` or `delta` for a paired comparison). pandas, polars and pyarrow are
imported only by the method that returns one of theirs.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from riskcov.errors import MissingExtraError

if TYPE_CHECKING:
    from riskcov.api.warehouse import Warehouse
    from riskcov.evaluation.options import Options

COLUMNS = ("input", "csf", "metric", "value", "ci_low", "ci_high")
# the per-group rows (group=, docs/metrics-extended.md), as the table evaluation_group_metrics
GROUP_COLUMNS = ("csf", "group", "metric", "value", "ci_low", "ci_high")


def _require(module: str, extra: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(f"this needs {extra}: pip install {extra}") from None


class Evaluation:
    """One evaluation: `artifact` is the dict `riskcov evaluate` writes (same keys, same values
    for the same data and options); `skipped` the CSFs `all` could not compute and why;
    `evaluation_id` and `path` where the warehouse keeps it (None when nothing was stored to
    a file)."""

    def __init__(
        self,
        artifact: dict[str, Any],
        skipped: dict[str, str],
        *,
        warehouse: Warehouse,
        options: Options,
        evaluation_id: int | None = None,
        path: Path | None = None,
    ) -> None:
        self.artifact = artifact
        self.skipped = skipped
        self.evaluation_id = evaluation_id
        self.path = path
        self._warehouse = warehouse
        self._options = options

    def __repr__(self) -> str:
        csfs = ", ".join(self.artifact["confidence_variants"])
        runs = " vs ".join(i["run_id"] for i in self.artifact["inputs"])
        return f"<riskcov.Evaluation of {runs}: {csfs}>"

    def rows(self) -> list[tuple[str, str, str, Any, Any, Any]]:
        """(input, csf, metric, value, ci_low, ci_high) for every number of the artifact."""
        from riskcov.report.store import metric_rows

        return metric_rows(self.artifact)

    def group_rows(self) -> list[tuple[str, str | None, str, Any, Any, Any]]:
        """(csf, group, metric, value, ci_low, ci_high) per group of an evaluation with
        `group=COLUMN` (docs/metrics-extended.md; group None: the CSF's coverage gaps); [] without."""
        from riskcov.report import group_tables

        block = self.artifact.get("groups")
        return group_tables.rows(block) if block else []

    def _columns(self, groups: bool) -> dict[str, list[Any]]:
        names = GROUP_COLUMNS if groups else COLUMNS
        rows: list[tuple[Any, ...]] = list(self.group_rows() if groups else self.rows())
        out: dict[str, list[Any]] = {c: [] for c in names}
        for row in rows:
            for c, v in zip(names, row, strict=True):
                out[c].append(float(v) if c in names[3:] and v is not None else v)
        return out

    def to_arrow(self, groups: bool = False) -> Any:
        """The metric rows as a pyarrow Table (needs pyarrow); `groups=True`: the per-group rows."""
        pa = _require("pyarrow", "pyarrow")
        return pa.table(self._columns(groups))

    def to_pandas(self, groups: bool = False) -> Any:
        """The metric rows as a pandas DataFrame (needs pandas); `groups=True`: the per-group rows."""
        pd = _require("pandas", "pandas")
        return pd.DataFrame(self._columns(groups))

    def to_polars(self, groups: bool = False) -> Any:
        """The metric rows as a polars DataFrame (needs polars); `groups=True`: the per-group rows."""
        pl = _require("polars", "polars")
        return pl.DataFrame(self._columns(groups), strict=False)

    def value(self, metric: str, csf: str | None = None, input: str = "input_0") -> float | None:
        """One number, e.g. `value("aurc_full")` (the first CSF unless `csf` is given).

        >>> import riskcov
        >>> ev = riskcov.evaluate({"confidence": [0.9, 0.8, 0.3], "correct": [1, 0, 0]}, resamples=0)
        >>> ev.value("aurc_full")  # risks 0, 1/2, 2/3 at 1/3, 2/3, 1: (1/2 / 2 + (1/2 + 2/3) / 2) / 3
        0.2777777777777778
        """
        name = csf or next(iter(self.artifact["confidence_variants"]))
        for i, c, m, v, _, _ in self.rows():
            if (i, c, m) == (input, name, metric):
                return None if v is None else float(v)
        raise KeyError(f"no {metric} of confidence {name} for {input}")

    def curve(self, points: int = 201) -> dict[str, Any]:
        """The RC curves at `points` coverages from 0 to each curve's Cmax, as columns (numpy
        arrays): input, run_id, experiment_id, csf, point, coverage, selective_risk,
        generalized_risk; `pandas.DataFrame(ev.curve())` makes a frame of it. Computed anew
        from the warehouse with the evaluation's options (nothing stored)."""
        import numpy as np

        from riskcov.evaluation.curve_export import COLUMNS as CURVE_COLUMNS
        from riskcov.evaluation.curve_export import curve_rows

        with self._warehouse.connection() as con:
            rows = curve_rows(con, replace(self._options, inputs=self._run_ids()), points)
        return {c: np.array([r[c] for r in rows]) for c in CURVE_COLUMNS}

    def _run_ids(self) -> list[str]:
        return [i["run_id"] for i in self.artifact["inputs"]]

    def plot(self, path: str | Path | None = None) -> Any:
        """The RC and generalized-risk curves of the artifact as a matplotlib Figure (the
        `plot` extra); also saved to `path` (.png or .svg) when given."""
        from riskcov.report.curves import lines_from_artifact
        from riskcov.report.plot import draw, render

        lines = lines_from_artifact(self.artifact)
        title = " · ".join(self._run_ids()) + f" ({self.artifact['estimator']})"
        if path is not None:
            render(lines, Path(path), title)
        return draw(lines, title)

    def _repr_html_(self) -> str:
        """The console summary's tables as HTML, for a notebook cell."""
        from riskcov.report.summary import html

        return html(self.artifact)
