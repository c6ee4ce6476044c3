"""What `riskcov evaluate` takes besides the warehouse, and its usage checks."""

from __future__ import annotations

from dataclasses import dataclass, field

from riskcov.errors import UsageError
from riskcov.metrics.budgets import refuse_outside
from riskcov.metrics.estimators import ESTIMATORS
from riskcov.metrics.grids import DEFAULT_ALPHAS, DEFAULT_COSTS, DEFAULT_GRID, refuse_costs, refuse_coverages
from riskcov.report.keys import grid_key

MAX_RESAMPLES = 10_000_000
MAX_CURVE_POINTS = 100_000
LOSSES = ("abs", "abs_norm", "given")
# the columns of `samples` --group reads groups from; any other name is an attribute (docs/formats.md)
GROUP_COLUMNS = ("label", "prediction")


SPARK_INSTALL = "--engine spark needs pyspark and pyarrow: pip install 'riskcov[spark]' (and Java 17+)"


def spark_installed() -> bool:
    """Whether --engine spark can import what it needs (without importing it: pyspark is slow)."""
    from importlib.util import find_spec

    return find_spec("pyspark") is not None and find_spec("pyarrow") is not None


def spark_settings(pairs: list[str]) -> dict[str, str]:
    """--spark-conf KEY=VALUE flags as Spark settings (a key given twice: the last wins).

    >>> spark_settings(["spark.driver.memory=8g", "spark.x=a=b", "spark.driver.memory=4g"])
    {'spark.driver.memory': '4g', 'spark.x': 'a=b'}
    """
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise UsageError(f"--spark-conf {pair}: give KEY=VALUE, e.g. spark.driver.memory=8g")
        out[key.strip()] = value.strip()
    return out


@dataclass
class Options:
    """Everything `evaluate` takes besides the warehouse."""

    inputs: list[str]
    modes: list[str] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    seeds: list[str] = field(default_factory=list)
    splits: list[str] = field(default_factory=list)
    domains: list[str] = field(default_factory=list)
    loss: str | None = None  # None: the experiment's default (abs_norm for PHQ-8, given per-sample)
    confidence: str = "default"
    coverage_grid: list[float] = field(default_factory=lambda: list(DEFAULT_GRID))
    area_coverage: float = 0.5
    bootstrap_resamples: int = 10_000
    seed: int = 42
    intersection_only: bool = False
    estimator: str = "plateau-trapezoid"
    alpha_grid: list[float] = field(default_factory=lambda: list(DEFAULT_ALPHAS))
    chunk_replicates: int = 0  # 0: sized from the analysis set
    workers: int = 0  # connections running chunks at once; 0: one per DuckDB thread when worth it
    # keep DuckDB's freed blocks from chunk to chunk (docs/performance.md, the block pool): the
    # instance keeps them until it closes, so only the CLI, whose process ends with it, asks
    block_pool: bool = False
    # leave the caller's connection as it was (its TEMP tables, preserve_insertion_order:
    # evaluation/callers_state.py); the CLI's connection closes with the command, so it skips that
    restore_connection: bool = True
    curve_points: int | None = None  # K: add curve_grid, the curve at K coverages 0..Cmax
    calibration: str | None = None  # --calibration FILE|ID (docs/calibration.md)
    costs: list[float] = field(default_factory=lambda: list(DEFAULT_COSTS))  # effective reliability
    group: str | None = None  # --group COLUMN: metrics per group of samples (docs/metrics-extended.md)
    engine: str = "duckdb"  # or spark: the replicates' metrics on Apache Spark (docs/spark.md)
    spark_master: str | None = None  # --spark-master; SPARK_REMOTE selects Spark Connect instead
    spark_conf: dict[str, str] = field(default_factory=dict)  # --spark-conf KEY=VALUE (docs/spark.md)

    @property
    def criteria(self) -> dict[str, list[str]]:
        """How inputs pick their experiment, by flag (see selection.resolve)."""
        return {
            "--mode": self.modes,
            "--method": self.methods,
            "--experiment-seed": self.seeds,
            "--split": self.splits,
            "--domain": self.domains,
        }

    def check(self) -> None:
        """Usage errors before any work is done."""
        if self.loss is not None and self.loss not in LOSSES:
            raise UsageError(
                f"--loss {self.loss}: choose abs or abs_norm (PHQ-8 runs) or given (per-sample runs)"
            )
        if self.engine not in ("duckdb", "spark"):
            raise UsageError(f"--engine {self.engine}: choose duckdb or spark")
        if self.spark_conf and self.engine != "spark":
            raise UsageError("--spark-conf applies to --engine spark")
        if self.spark_master is not None and self.engine != "spark":
            raise UsageError("--spark-master applies to --engine spark")
        if self.engine == "spark" and not spark_installed():
            raise UsageError(SPARK_INSTALL)
        if self.estimator not in ESTIMATORS:
            raise UsageError(f"--estimator {self.estimator}: choose one of {', '.join(ESTIMATORS)}")
        if not 0.0 < self.area_coverage <= 1.0:
            raise UsageError(f"--area-coverage {self.area_coverage!r} is not in (0, 1]")
        if not self.coverage_grid:
            raise UsageError("--coverage-grid needs at least one value")
        refuse_coverages(self.coverage_grid)
        keys = [grid_key(c) for c in self.coverage_grid]
        if len(set(keys)) != len(keys):
            raise UsageError("--coverage-grid values must differ in their first two decimals")
        if not self.alpha_grid:
            raise UsageError("--alpha-grid needs at least one value")
        # a risk budget lies in the selective risk's range: [0, 1] (abs_norm, 0/1 and given
        # losses as the risk-control bounds take them), [0, 3] for loss abs
        top = 3.0 if self.loss == "abs" else 1.0
        note = f", the selective risk's range for loss {self.loss or 'abs_norm/given'}"
        note += "" if self.loss == "abs" else " (--loss abs: [0, 3])"
        for a in self.alpha_grid:
            refuse_outside("--alpha-grid", a, top, note=note)
        keys = [grid_key(a) for a in self.alpha_grid]
        if len(set(keys)) != len(keys):
            raise UsageError("--alpha-grid values must differ in their first two decimals")
        if not self.costs:
            raise UsageError("--costs needs at least one value")
        refuse_costs(self.costs)
        keys = [grid_key(c) for c in self.costs]
        if len(set(keys)) != len(keys):
            raise UsageError("--costs values must differ in their first two decimals")
        if self.group == "":
            raise UsageError("--group needs a column name")
        if self.bootstrap_resamples > MAX_RESAMPLES:
            raise UsageError(
                f"--bootstrap-resamples {self.bootstrap_resamples} is more than {MAX_RESAMPLES:,}"
            )
        if not 0 <= self.seed < 2**32:
            raise UsageError(f"--seed {self.seed} is not in 0..2**32-1")
        if self.curve_points is not None and not 2 <= self.curve_points <= MAX_CURVE_POINTS:
            raise UsageError(f"--curve-points {self.curve_points} is not in 2..{MAX_CURVE_POINTS:,}")
        if self.bootstrap_resamples > 0 and self.estimator != "plateau-trapezoid":
            raise UsageError(
                "bootstrap CIs are computed for --estimator plateau-trapezoid; "
                "pass --bootstrap-resamples 0 with another estimator"
            )
