"""`riskcov scod`: selective classification with OOD samples in the pool (docs/metrics-extended.md).

The ID and OOD experiments of one (method, seed, split) of a per-sample run are ranked together
by each CSF both have; for each cost c_OOD the SQL macro scod_scored gives every accepted sample
its loss (0 correct ID, (1 - c_OOD) x loss wrong ID, c_OOD OOD) and the engine's macros compute
SCOD-AURC (aurc_full), SCOD-AUGRC (augrc_full) and Coverage@Risk over the same working points,
replicate 0 and the cluster bootstrap's replicates alike. Clusters are taken per domain: an ID
and an OOD cluster of the same name are two bootstrap units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np

from riskcov.bootstrap import interval
from riskcov.errors import InputError, UsageError
from riskcov.evaluation import replicates
from riskcov.ingest.inputs import Input, resolve
from riskcov.metrics import engine
from riskcov.metrics.budgets import refuse_outside
from riskcov.report.artifact import utc_now
from riskcov.report.keys import grid_key
from riskcov.scoring.csf import Csf
from riskcov.scoring.scored import Series
from riskcov.warehouse.duckdb_helpers import one, transaction

DEFAULT_COSTS = [round(0.1 * k, 1) for k in range(11)]
DEFAULT_ALPHAS = [0.05, 0.1, 0.2]
MAX_RESAMPLES = 1_000_000


@dataclass
class ScodOptions:
    """What `riskcov scod` takes besides the warehouse."""

    input: str
    methods: list[str] = field(default_factory=list)
    seeds: list[str] = field(default_factory=list)
    splits: list[str] = field(default_factory=list)
    c_ood: list[float] = field(default_factory=lambda: list(DEFAULT_COSTS))
    alpha_grid: list[float] = field(default_factory=lambda: list(DEFAULT_ALPHAS))
    bootstrap_resamples: int = 1000
    seed: int = 42

    def check(self) -> None:
        if not self.c_ood:
            raise UsageError("--c-ood needs at least one value")
        for c in self.c_ood:
            if not 0.0 <= c <= 1.0:
                raise UsageError(f"--c-ood value {c!r} is not in [0, 1]")
        if len({grid_key(c) for c in self.c_ood}) != len(self.c_ood):
            raise UsageError("--c-ood values must differ in their first two decimals")
        if not self.alpha_grid:
            raise UsageError("--alpha-grid needs at least one value")
        for a in self.alpha_grid:  # SCOD's losses are 0/1 costs
            refuse_outside("--alpha-grid", a, note=", the range of the SCOD risk")
        if len({grid_key(a) for a in self.alpha_grid}) != len(self.alpha_grid):
            raise UsageError("--alpha-grid values must differ in their first two decimals")
        if self.bootstrap_resamples > MAX_RESAMPLES:
            raise UsageError(
                f"--bootstrap-resamples {self.bootstrap_resamples} is more than {MAX_RESAMPLES:,}"
            )
        if not 0 <= self.seed < 2**32:
            raise UsageError(f"--seed {self.seed} is not in 0..2**32-1")


def _experiments(con: duckdb.DuckDBPyConnection, opts: ScodOptions) -> tuple[Input, Input]:
    criteria = {"--method": opts.methods, "--experiment-seed": opts.seeds, "--split": opts.splits}
    (id_input,) = resolve(con, [opts.input], {**criteria, "--domain": ["id"]})
    if not id_input.per_sample:
        raise UsageError(f"--input {opts.input}: SCOD needs a per-sample run with id and ood samples")
    pinned = {
        flag: [str(id_input.fields[col])]
        for flag, col in (("--method", "method"), ("--experiment-seed", "seed"), ("--split", "split"))
    }
    (ood_input,) = resolve(con, [id_input.run_id], {**pinned, "--domain": ["ood"]})
    return id_input, ood_input


def _units(con: duckdb.DuckDBPyConnection, ids: tuple[int, int]) -> list[str]:
    """TEMP TABLE scod_units (csf_no, ood, participant_id, item_index, confidence, abstained,
    loss) of the CSFs both experiments have, clusters renumbered 1.. per (domain, cluster);
    return the CSFs in csf_no order."""
    csfs = [
        str(r[0])
        for r in con.execute(
            "SELECT csf FROM sample_scores WHERE experiment_id IN (?, ?) GROUP BY csf "
            "HAVING count(DISTINCT experiment_id) = 2 ORDER BY csf",
            list(ids),
        ).fetchall()
    ]
    if not csfs:
        raise InputError("the id and ood experiments have no score column in common")
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE scod_units AS
        SELECT CAST(list_position(?::VARCHAR[], c.csf) - 1 AS INTEGER) AS csf_no,
               c.experiment_id = ? AS ood,
               dense_rank() OVER (ORDER BY c.experiment_id = ?, c.participant_id) AS participant_id,
               2 * c.item_index + CAST(c.experiment_id = ? AS INTEGER) AS item_index,
               c.confidence, c.abstained, c.loss_raw AS loss, c.problem, c.item_index AS sample_index,
               c.experiment_id
        FROM v_sample_confidences AS c
        WHERE c.experiment_id IN (?, ?) AND list_contains(?::VARCHAR[], c.csf)
        """,
        [csfs, ids[1], ids[1], ids[1], ids[0], ids[1], csfs],
    )
    bad = one(
        con.execute(
            "SELECT u.csf_no, s.sample_id, u.ood, u.problem FROM scod_units AS u JOIN samples AS s "
            "ON s.experiment_id = u.experiment_id AND s.sample_index = u.sample_index "
            "WHERE u.problem IS NOT NULL ORDER BY u.ood, u.sample_index, u.csf_no LIMIT 1"
        )
    )
    if bad:
        domain = "ood" if bad[2] else "id"
        raise InputError(f"{domain} sample {bad[1]}, confidence {csfs[bad[0]]}: {bad[3]}")
    return csfs


def run(con: duckdb.DuckDBPyConnection, opts: ScodOptions) -> dict[str, Any]:
    """The SCOD document: {inputs, options, rows: [{csf, c_ood, scod_aurc, scod_augrc,
    coverage_at_risk: {alpha key: value}, ci95: {...}}]}; nothing stored."""
    opts.check()
    id_input, ood_input = _experiments(con, opts)
    csfs = _units(con, (id_input.experiment_id, ood_input.experiment_id))
    con.execute("CREATE OR REPLACE TEMP TABLE eval_scored AS FROM scod_scored('scod_units', ?)", [opts.c_ood])
    n_costs = len(opts.c_ood)
    series = [Series(k, 0, Csf(csfs[k // n_costs], ""), k) for k in range(len(csfs) * n_costs)]
    engine.drop_series(con, series)
    row = one(con.execute("SELECT count(DISTINCT participant_id) FROM scod_units"))
    participants = list(range(1, int(row[0]) + 1)) if row else []
    b = max(opts.bootstrap_resamples, 0)
    res = replicates.compute(con, series, participants, b, opts.seed, opts.alpha_grid)
    rows = []
    for s in series:
        c = opts.c_ood[s.index % n_costs]
        entry: dict[str, Any] = {"csf": s.csf.name, "c_ood": c}
        ci: dict[str, Any] = {}
        for key, name in (("scod_aurc", "aurc_full"), ("scod_augrc", "augrc_full")):
            arr = res.scalars[name][s.index]
            entry[key] = None if np.isnan(arr[0]) else float(arr[0])
            ci[key] = interval(entry[key], arr[1:])[0] if b > 0 else None
        entry["coverage_at_risk"] = {}
        ci["coverage_at_risk"] = {}
        for a in opts.alpha_grid:
            arr = res.scalars[f"car_coverage@{a!r}"][s.index]
            entry["coverage_at_risk"][grid_key(a)] = float(arr[0])
            ci["coverage_at_risk"][grid_key(a)] = interval(float(arr[0]), arr[1:])[0] if b > 0 else None
        entry["ci95"] = ci
        rows.append(entry)
    return {
        "created_at": utc_now(),
        "inputs": {
            "run_id": id_input.run_id,
            **{k: id_input.fields[k] for k in ("method", "seed", "split")},
            "id_experiment_id": id_input.experiment_id,
            "ood_experiment_id": ood_input.experiment_id,
            "clusters": len(participants),
        },
        "options": {
            "c_ood": opts.c_ood,
            "alpha_grid": opts.alpha_grid,
            "bootstrap_resamples": b,
            "seed": opts.seed,
        },
        "rows": rows,
    }


def store(con: duckdb.DuckDBPyConnection, doc: dict[str, Any]) -> int:
    """Insert the document's rows into scod_results (one scod_id); return that id."""
    row = one(con.execute("SELECT nextval('scod_id_seq')"))
    assert row is not None
    scod_id = int(row[0])
    inp, opts = doc["inputs"], doc["options"]
    head = [
        scod_id,
        doc["created_at"].rstrip("Z"),
        inp["run_id"],
        inp["method"],
        inp["seed"],
        inp["split"],
        inp["id_experiment_id"],
        inp["ood_experiment_id"],
    ]
    tail = [opts["bootstrap_resamples"], opts["seed"]]
    values = []
    for r in doc["rows"]:
        for metric in ("scod_aurc", "scod_augrc"):
            lo, hi = r["ci95"][metric] or (None, None)
            values.append([*head, r["csf"], r["c_ood"], metric, None, r[metric], lo, hi, *tail])
        for a in opts["alpha_grid"]:
            lo, hi = r["ci95"]["coverage_at_risk"][grid_key(a)] or (None, None)
            values.append(
                [
                    *head,
                    r["csf"],
                    r["c_ood"],
                    "coverage_at_risk",
                    a,
                    r["coverage_at_risk"][grid_key(a)],
                    lo,
                    hi,
                    *tail,
                ]
            )
    with transaction(con, own=False):
        con.executemany(
            "INSERT INTO scod_results VALUES (?, ?::TIMESTAMP, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            values,
        )
    return scod_id
