"""ECE, NLL, Brier and AUROC of a confidence, by the warehouse's own SQL macros.

The macros `prob_calibration` (sql/prob_calibration.sql) and `rc_auroc` (sql/rc_auroc.sql) must
be installed on the connection; nothing here recomputes them in Python.

>>> from riskcov.resources import resource_dir
>>> sql = resource_dir("sql")
>>> con = duckdb.connect()
>>> for f in ("prob_calibration.sql", "rc_auroc.sql"):
...     _ = con.execute((sql / f).read_text())
>>> calibration_metrics(con, np.array([0.25, 0.75]), np.array([0, 1]))
{'n': 2, 'ece': 0.25, 'nll': 0.2876820724517809, 'brier': 0.0625, 'auroc': 1.0, 'n_bins': 10}
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np
import numpy.typing as npt

from riskcov.warehouse.duckdb_helpers import registered

Metrics = dict[str, Any]


def calibration_metrics(
    con: duckdb.DuckDBPyConnection, prob: npt.ArrayLike, correct: npt.ArrayLike, n_bins: int = 10
) -> Metrics:
    """n, ECE (n_bins equal-width bins), NLL (clipped at 1e-6), Brier, AUROC (correct positive,
    ties ½; None with one class present) of probabilities `prob` against 0/1 `correct`."""
    p = np.asarray(prob, dtype=np.float64)
    y = np.asarray(correct, dtype=np.float64)
    if p.shape != y.shape or p.ndim != 1:
        raise ValueError(f"prob {p.shape} and correct {y.shape} must be vectors of one length")
    if not np.all((p >= 0) & (p <= 1)):
        raise ValueError("prob must lie in [0, 1]")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("correct must be 0 or 1")
    if p.size == 0:
        return {"n": 0, "ece": None, "nll": None, "brier": None, "auroc": None, "n_bins": n_bins}
    cols = {"series": np.zeros(p.size, dtype=np.int64), "prob": p, "correct": y.astype(np.int64)}
    with registered(con, f"_riskcov_metrics_{id(cols)}", cols) as cal:
        rows = con.execute(
            f"SELECT n, ece, nll, brier FROM prob_calibration('{cal}', ?)", [n_bins]
        ).fetchall()
    (row,) = rows  # one series in, one row out
    return {
        "n": int(row[0]),
        "ece": row[1],
        "nll": row[2],
        "brier": row[3],
        "auroc": auroc(con, p, y),
        "n_bins": n_bins,
    }


def auroc(con: duckdb.DuckDBPyConnection, score: npt.ArrayLike, correct: npt.ArrayLike) -> float | None:
    """AUROC of any score separating correct (positive) from wrong items, ties counting ½;
    None when one class is empty."""
    s = np.asarray(score, dtype=np.float64)
    positive = np.asarray(correct, dtype=np.float64) == 1
    if s.size == 0:
        return None
    cols = {"series": np.zeros(s.size, dtype=np.int64), "score": s, "positive": positive}
    with registered(con, f"_riskcov_metrics_{id(cols)}", cols) as roc:
        rows = con.execute(f"SELECT auroc FROM rc_auroc('{roc}')").fetchall()
    value: float | None = rows[0][0]
    return value


def before_after(
    con: duckdb.DuckDBPyConnection,
    before: npt.ArrayLike,
    after: npt.ArrayLike,
    correct: npt.ArrayLike,
    n_bins: int = 10,
) -> Metrics:
    """The artifact's `metrics`: `<metric>_before` / `<metric>_after` for the raw and the
    calibrated confidence. ECE, NLL and Brier need a probability, so for a raw confidence outside
    [0, 1] (an evidence count) they are None; AUROC needs only a ranking and is always given.

    >>> from riskcov.resources import resource_dir
    >>> sql = resource_dir("sql")
    >>> con = duckdb.connect()
    >>> for f in ("prob_calibration.sql", "rc_auroc.sql"):
    ...     _ = con.execute((sql / f).read_text())
    >>> m = before_after(con, [0.0, 3.0], [0.25, 0.75], [0, 1])
    >>> m["ece_before"], m["auroc_before"], m["ece_after"]
    (None, 1.0, 0.25)
    """
    raw = np.asarray(before, dtype=np.float64)
    out: Metrics = {}
    after_m = calibration_metrics(con, after, correct, n_bins)
    if np.all((raw >= 0) & (raw <= 1)):
        before_m = calibration_metrics(con, raw, correct, n_bins)
    else:
        before_m = {"ece": None, "nll": None, "brier": None, "auroc": auroc(con, raw, correct)}
    out["n"] = after_m["n"]
    out["n_bins"] = n_bins
    for key in ("ece", "nll", "brier", "auroc"):
        out[f"{key}_before"] = before_m[key]
        out[f"{key}_after"] = after_m[key]
    return out
