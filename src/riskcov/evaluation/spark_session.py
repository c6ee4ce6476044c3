"""The Spark session of `evaluate --engine spark` (docs/spark.md): a local master, a cluster's
master, or Spark Connect (SPARK_REMOTE), with riskcov's settings and the user's --spark-conf
over them."""

from __future__ import annotations

import os
import warnings
from typing import Any

from riskcov.errors import UsageError
from riskcov.evaluation.options import SPARK_INSTALL


def driver_memory(physical: int | None = None) -> str:
    """spark.driver.memory for a local session: a quarter of the machine's memory in whole GiB,
    1g to 32g. A local session runs its tasks in the driver's JVM, whose default heap (1g) ran
    out on a 100,000-sample bootstrap (docs/spark.md).

    >>> driver_memory(24 * 2**30), driver_memory(2 * 2**30), driver_memory(512 * 2**30)
    ('6g', '1g', '32g')
    """
    if physical is None:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return f"{max(1, min(32, physical // 4 // 2**30))}g"


def settings(master: str | None, conf: dict[str, str], remote: str | None) -> dict[str, str]:
    """The settings a session starts with: riskcov's, then the user's --spark-conf over them.
    Through Spark Connect to a cluster (`remote` sc://...) only session settings can be set;
    a local master, or a local Connect server (`remote` local[...]), also gets no web UI and a
    driver heap sized from the machine (driver_memory)."""
    out = {
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.shuffle.partitions": "8",
    }
    target = remote or master or "local[*]"
    if not remote or target.startswith("local"):  # Spark settings, not a session's
        # the driver's log at ERROR: its WARNs name what riskcov does on purpose (a window
        # without partitions numbers the clusters, released checkpoints cannot be recomputed)
        out |= {"spark.ui.showConsoleProgress": "false", "spark.log.level": "ERROR"}
    if target.startswith("local"):
        # the cells (a row per cluster, series and confidence) joined to the weights by
        # broadcast, so the join keeps the weights' partitioning by replicate (spark_engine)
        out |= {"spark.ui.enabled": "false", "spark.driver.memory": driver_memory(),
                "spark.sql.autoBroadcastJoinThreshold": "64m"}  # fmt: skip
    return out | conf


def session(master: str | None, conf: dict[str, str] | None = None) -> Any:
    """A SparkSession: Spark Connect when SPARK_REMOTE is set, else `master` (local[*]), with
    settings(). A session already running in this process is reused (its JVM keeps its heap)."""
    try:
        import pyarrow  # noqa: F401
        from pyspark.sql import SparkSession
    except ImportError:
        raise UsageError(SPARK_INSTALL) from None
    remote = os.environ.get("SPARK_REMOTE") or None
    builder = SparkSession.builder.appName("riskcov")
    builder = builder.remote(remote) if remote else builder.master(master or "local[*]")
    for key, value in settings(master, conf or {}, remote).items():
        builder = builder.config(key, value)
    with warnings.catch_warnings():
        if remote and remote.startswith("local"):
            # a local Connect server starts with every setting, then the client re-sends them
            # as session settings and warns that the server-wide ones cannot change any more
            warnings.filterwarnings("ignore", message="Failed to set spark", category=UserWarning)
        return builder.getOrCreate()
