"""`riskcov compare`: the method comparison table, one row per method — empirical
Coverage@Risk(alpha) on test, the certified violation rate, OOD acceptance at fixed ID
coverages and AURC (the macros behind v_metrics), each over the method's seeds."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from riskcov.report.artifact import write_on_commit
from riskcov.riskcontrol import experiments as ex
from riskcov.riskcontrol import ood_suite, rules, seed_summary, suite, working_points
from riskcov.riskcontrol.bounds import check_level
from riskcov.riskcontrol.command_options import CertificateOptions, InputOptions
from riskcov.warehouse.duckdb_helpers import transaction


@dataclass
class Options(CertificateOptions):
    """The command's flags; `check` refuses bad ones before the warehouse is opened."""

    alpha: float = 0.1
    id_coverage: list[float] = field(default_factory=lambda: [0.7, 0.8])

    def risk_options(self) -> suite.Options:
        return suite.Options(**self.shared(CertificateOptions), alphas=[self.alpha])

    def ood_options(self) -> ood_suite.Options:
        return ood_suite.Options(
            **self.shared(InputOptions), id_coverage=self.id_coverage, split=self.test_split
        )

    def check(self) -> None:
        check_level("alpha", self.alpha)
        self.risk_options().check()
        if self.id_coverage:  # none: a table without OOD columns
            self.ood_options().check()


def ood_key(c: float) -> str:
    """The row key of OOD acceptance at ID coverage c.

    >>> ood_key(0.7)
    'ood_accept_at_id_0.7'
    """
    return f"ood_accept_at_id_{c:g}"


def _aurc(con: duckdb.DuckDBPyConnection, ids: list[int], csf: str) -> dict[int, float]:
    """AURC (default estimator) of each experiment by `csf`: the macros v_metrics runs
    (rc_scored, rc_totals, rc_points, rc_metrics), on these experiments only, one thread."""
    from riskcov.scoring.confidences import sample_confidences_sql
    from riskcov.warehouse.duckdb_helpers import single_threaded

    where = f"experiment_id IN ({', '.join(str(int(i)) for i in ids)})"
    labels = "experiment_id AS series, experiment_id AS population, 'given' AS loss,"
    con.execute(
        "CREATE OR REPLACE TEMP TABLE cmp_confidences AS "
        + sample_confidences_sql(csf, labels=labels, where=where)
    )
    con.execute("CREATE OR REPLACE TEMP TABLE cmp_scored AS FROM rc_scored('cmp_confidences')")
    con.execute(
        "CREATE OR REPLACE TEMP TABLE cmp_totals AS FROM rc_totals('cmp_scored', 'internal.v_unit_samples')"
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE cmp_points AS "
        "FROM rc_points('cmp_scored', 'internal.v_unit_samples', 'cmp_totals') "
        "ORDER BY series, replicate, plateau"
    )
    try:
        got = single_threaded(
            con,
            "SELECT series, aurc_full FROM rc_metrics('cmp_points', 'cmp_totals', 0.5, 'plateau-trapezoid')",
            [],
        )
    finally:
        for t in ("cmp_points", "cmp_totals", "cmp_scored", "cmp_confidences"):
            con.execute(f"DROP TABLE IF EXISTS {t}")
    return {int(e): float(a) for e, a in zip(got["series"], got["aurc_full"], strict=True)}


def compare(con: duckdb.DuckDBPyConnection, opts: Options) -> dict[str, Any]:
    """The comparison document: one row per method, its columns in table order."""
    opts.check()
    ropts = opts.risk_options()
    found = ex.resolve(con, opts.inputs, opts.methods)
    chosen = [e for e in found if e.key.split in (opts.cal_split, opts.test_split)]
    suite.pairs(found, opts.cal_split, opts.test_split)  # what is missing, before which column to read
    if opts.id_coverage:
        ood_suite.domain_pairs(found, opts.test_split)
    csf = ex.choose_csf(con, chosen, opts.confidence)
    certified, _ = suite.summarise(suite.seed_rows(con, found, csf, ropts, ("certified",)), None)
    ood_by: dict[str, list[dict[str, Any]]] = {}
    if opts.id_coverage:
        for r in ood_suite.seed_results(con, found, csf, opts.ood_options()):
            ood_by.setdefault(r["method"], []).append(r)
    tests = suite.pairs(found, opts.cal_split, opts.test_split)
    aurc = _aurc(con, [t.experiment_id for _, t in tests.values()], csf)
    rows = []
    for method in sorted({m for m, _ in tests}):
        seeds = sorted(s for m, s in tests if m == method)
        car, aurcs = [], []
        for s in seeds:
            test_e = tests[(method, s)][1]
            t = ex.load(con, test_e, csf)
            pts = working_points.working_points(con, t.confidence, t.loss, t.abstained)
            car.append(rules.uncertified(con, pts, opts.alpha).coverage)
            aurcs.append(aurc[test_e.experiment_id])
        mine = [r for r in certified if r["method"] == method]
        violations = sum(r["violated"] for r in mine)
        row: dict[str, Any] = {"method": method, "seeds": seeds}
        row["coverage_at_risk_mean"], row["coverage_at_risk_std"] = seed_summary.mean_std(car)
        row["violation_rate"] = violations / len(mine)
        for k, c in enumerate(opts.id_coverage):
            accepts = [r["rows"][k]["ood_accept_rate"] for r in ood_by.get(method, [])]
            row[ood_key(c)] = seed_summary.mean_std(accepts)[0]
        row["aurc_mean"], row["aurc_std"] = seed_summary.mean_std(aurcs)
        rows.append(row)
    return {
        "command": "compare",
        "inputs": sorted({e.run_id for e in chosen}),
        "csf": csf,
        "options": opts.recorded(),
        "rows": rows,
    }


def compare_in_transaction(
    con: duckdb.DuckDBPyConnection, opts: Options, output: Path | None = None
) -> dict[str, Any]:
    """compare, with files given as --input ingested in the same transaction (kept on success);
    the JSON document written to `output` last, inside it."""
    opts.check()
    with transaction(con) as tx:
        doc = compare(con, opts)
        if output is not None:
            write_on_commit(tx, doc, output)
    return doc
