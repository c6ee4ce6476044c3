"""`riskcov risk-control` (docs/risk-control.md): per method and seed, the certified, uncertified and CRC
thresholds fit on the cal split and applied on the test split, and per (method, alpha, rule)
the violation rate over the seeds; the rows are stored with the command's options."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from riskcov.errors import InputError, UsageError
from riskcov.evaluation.groups import check_column
from riskcov.metrics.budgets import refuse_outside
from riskcov.report.artifact import write_on_commit
from riskcov.riskcontrol import experiments as ex
from riskcov.riskcontrol import fwer, group_coverage, multi_risk, rules, seed_summary, working_points
from riskcov.riskcontrol.bounds import check_level, check_losses
from riskcov.riskcontrol.command_options import CertificateOptions
from riskcov.riskcontrol.store import record_command, store_results
from riskcov.warehouse.duckdb_helpers import transaction

RULES = ("certified", "uncertified", "crc")
# each level certifies every method and seed again; no real use gives near this many, and an
# unbounded list (a generated one, a typo's million values) is hours of work
MAX_ALPHAS = 100


@dataclass
class Options(CertificateOptions):
    """The command's flags; `check` refuses bad ones before the warehouse is opened."""

    alphas: list[float] = field(default_factory=lambda: [0.05, 0.1, 0.15, 0.2])
    violation_margin: float | None = None
    split_seed: int = 0  # split-fixed-sequence: which cal samples order the candidates
    risks: list[str] = field(default_factory=list)  # --risk kind:level, controlled together
    group: str | None = None  # --group COLUMN: test coverage per group (riskcontrol/group_coverage.py)

    def extra_risks(self) -> tuple[tuple[str, float], ...]:
        """The --risk entries other than selective ones (those set --alpha), as (kind, level)."""
        return tuple((k, v) for k, v in self._risks() if k != "selective")

    def _risks(self) -> list[tuple[str, float]]:
        out = []
        for text in self.risks:
            kind, _, level = text.partition(":")
            try:
                value = float(level)
            except ValueError:
                raise UsageError(f"--risk {text}: give kind:level, e.g. selective:0.1") from None
            if kind not in multi_risk.RISKS:
                raise UsageError(f"--risk {text}: the kind is one of {', '.join(multi_risk.RISKS)}")
            refuse_outside(f"--risk {kind} level", value, strict=True)
            out.append((kind, value))
        if len({k for k, _ in out}) != len(out):
            raise UsageError("--risk: each kind at most once")
        return out

    def check(self) -> None:
        selective = [v for k, v in self._risks() if k == "selective"]
        if selective:  # --risk selective:a is --alpha a
            self.alphas = selective
        self.check_inputs()
        if not self.alphas:
            raise UsageError("--alpha needs at least one value")
        if len(self.alphas) > MAX_ALPHAS:
            raise UsageError(f"--alpha: {len(self.alphas):,} values; at most {MAX_ALPHAS}")
        if len(set(self.alphas)) != len(self.alphas):
            raise UsageError(f"--alpha {','.join(map(str, self.alphas))}: a value is repeated")
        for a in self.alphas:
            check_level("alpha", a)
        self.check_certificate()
        if self.group == "":
            raise UsageError("--group needs a column name")
        if self.violation_margin is not None and not 0 <= self.violation_margin < math.inf:
            # inf failed only when the JSON was written: an internal error
            raise UsageError(f"--violation-margin must be >= 0 and finite, got {self.violation_margin!r}")
        if not 0 <= self.split_seed < 2**32:  # numpy's RandomState seeds (fwer.halves)
            raise UsageError(f"--split-seed {self.split_seed} is not in 0..2**32-1")


def pairs(
    found: list[ex.Experiment], first: str, second: str, domain: str = "id"
) -> dict[tuple[str, int], tuple[ex.Experiment, ex.Experiment]]:
    """(method, seed) -> its experiments of split/domain `first` and `second`; a seed with one
    but not the other is refused, naming what is missing."""
    by: dict[tuple[str, int], dict[str, ex.Experiment]] = {}
    for e in found:
        if e.key.domain == domain and e.key.split in (first, second):
            by.setdefault((e.key.method, e.key.seed), {})[e.key.split] = e
    if not by:
        raise InputError(f"the inputs have no {domain} experiment with split {first} or {second}")
    out = {}
    for (method, seed), splits in sorted(by.items()):
        for split in (first, second):
            if split not in splits:
                raise InputError(
                    f"method {method} seed {seed} has an {domain} experiment in split "
                    f"{second if split == first else first} but none in split {split}"
                )
        out[(method, seed)] = (splits[first], splits[second])
    return out


def _loaded(con: duckdb.DuckDBPyConnection, e: ex.Experiment, csf: str, bound: str) -> ex.Samples:
    data = ex.load(con, e, csf)
    try:
        check_losses(data.loss, bound)
    except InputError as exc:
        raise ex.named(e, exc) from None
    return data


def _points(
    con: duckdb.DuckDBPyConnection, cal: ex.Samples, opts: Options
) -> tuple[working_points.Points, tuple[working_points.Points, working_points.Points] | None]:
    """The cal working points, and for split-fixed-sequence those of its two halves
    (fwer.halves), in one query."""
    whole = (cal.confidence, cal.loss, cal.abstained)
    if opts.procedure != "split-fixed-sequence":
        return working_points.working_points_of(con, [whole])[0], None
    first = fwer.halves(len(cal.confidence), opts.split_seed)
    halves = [(cal.confidence[h], cal.loss[h], cal.abstained[h]) for h in (first, ~first)]
    points, one, two = working_points.working_points_of(con, [whole, *halves])
    return points, (one, two)


def _choose(
    con: duckdb.DuckDBPyConnection,
    points: working_points.Points,
    rule: str,
    alpha: float,
    opts: Options,
    split: tuple[working_points.Points, working_points.Points] | None = None,
) -> rules.Choice:
    if rule == "certified":
        return rules.certify(
            points, alpha, opts.delta, opts.bound, opts.procedure, opts.candidates, split, opts.extra_risks()
        )
    if rule == "uncertified":
        return rules.uncertified(con, points, alpha)
    return rules.crc(points, alpha)


def seed_rows(
    con: duckdb.DuckDBPyConnection,
    found: list[ex.Experiment],
    csf: str,
    opts: Options,
    wanted: tuple[str, ...] = RULES,
    tested: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """One row per (method, seed, alpha, rule): the cal choice and its test outcome; with
    `tested`, the certified rule's candidates and p-values are appended to it."""
    rows: list[dict[str, Any]] = []
    tested = [] if tested is None else tested
    for (method, seed), (cal_e, test_e) in pairs(found, opts.cal_split, opts.test_split).items():
        cal, test = _loaded(con, cal_e, csf, opts.bound), _loaded(con, test_e, csf, opts.bound)
        try:
            points, split = _points(con, cal, opts)
        except InputError as exc:
            raise ex.named(cal_e, exc) from None
        for alpha in opts.alphas:
            for rule in wanted:
                choice = _choose(con, points, rule, alpha, opts, split)
                if rule == "certified":
                    tested.extend(_tested(method, seed, alpha, points, choice))
                got = rules.apply(choice.threshold, test.confidence, test.loss, test.abstained)
                rows.append(
                    {
                        "method": method,
                        "seed": seed,
                        "rule": rule,
                        "alpha": alpha,
                        "csf": csf,
                        "cal_experiment_id": cal_e.experiment_id,
                        "test_experiment_id": test_e.experiment_id,
                        "threshold": choice.threshold,
                        "cal_coverage": choice.coverage,
                        "cal_risk": choice.risk,
                        "coverage": got.coverage,
                        "risk": got.risk,
                        "generalized_risk": got.generalized_risk,
                        "accepted": got.accepted,
                    }
                )
    return rows


def _tested(
    method: str, seed: int, alpha: float, points: working_points.Points, choice: rules.Choice
) -> list[dict[str, Any]]:
    """The certified rule's candidates: threshold, cal coverage and accepted count, p-value and
    whether the procedure rejected "risk > alpha" there, and under `risks` each risk's own
    p-value (with its level and the n it was tested with) that the p-value combines."""
    return [
        {
            "method": method,
            "seed": seed,
            "alpha": alpha,
            "candidate": n,
            "threshold": float(points.threshold[i]),
            "cal_coverage": float(points.coverage[i]),
            "accepted": int(points.k_cum[i]),
            "p_value": p,
            "rejected": ok,
            "risks": [r._asdict() for r in per_risk],
        }
        for n, (i, p, ok, per_risk) in enumerate(
            zip(choice.candidates, choice.p_values, choice.rejected, choice.risk_p_values, strict=True)
        )
    ]


def summarise(
    rows: list[dict[str, Any]], margin: float | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Rows sorted by (method, alpha, rule, seed) with `violated` / `violated_margin` set, and
    the violation summary of every (method, alpha, rule) group (seed_summary.violation_summary)."""
    groups: dict[tuple[str, float, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["method"], r["alpha"], r["rule"]), []).append(r)
    out_rows, summary = [], []
    for method, alpha, rule in sorted(groups, key=lambda g: (g[0], g[1], RULES.index(g[2]))):
        group = sorted(groups[(method, alpha, rule)], key=lambda r: r["seed"])
        outcomes = [
            seed_summary.SeedOutcome(r["seed"], r["coverage"], r["risk"], r["generalized_risk"])
            for r in group
        ]
        s = seed_summary.violation_summary(outcomes, alpha, rule, margin)
        for r, d in zip(group, s.pop("details"), strict=True):
            out_rows.append({**r, "violated": d["violated"], "violated_margin": d["violated_margin"]})
        summary.append({"method": method, **s})
    return out_rows, summary


def risk_control(con: duckdb.DuckDBPyConnection, opts: Options) -> dict[str, Any]:
    """The command's document (rows and summary), computed without storing anything."""
    opts.check()
    found = ex.resolve(con, opts.inputs, opts.methods)
    chosen = [e for e in found if e.key.domain == "id" and e.key.split in (opts.cal_split, opts.test_split)]
    pairs(found, opts.cal_split, opts.test_split)  # what is missing, before which column to read
    csf = ex.choose_csf(con, chosen, opts.confidence)
    tested: list[dict[str, Any]] = []
    rows, summary = summarise(seed_rows(con, found, csf, opts, tested=tested), opts.violation_margin)
    extra: dict[str, Any] = {}
    if opts.group is not None:
        for e in chosen:  # the groups are measured on the test split
            if e.key.split == opts.test_split:
                check_column(con, opts.group, e.experiment_id, e.describe())
        group_coverage.add(con, rows, csf, opts.group)
        extra["group_gaps"] = group_coverage.summary(rows)
    return {
        "command": "risk-control",
        "inputs": sorted({e.run_id for e in chosen}),
        "csf": csf,
        "options": opts.recorded(),
        "rows": rows,
        "summary": summary,
        "p_values": tested,
        **extra,
    }


def risk_control_and_store(
    con: duckdb.DuckDBPyConnection, opts: Options, output: Path | None = None
) -> dict[str, Any]:
    """risk_control, its rows stored under a new command id, in one transaction (files given as
    --input are ingested in it too: on any error the warehouse is left as it was)."""
    opts.check()
    with transaction(con) as tx:
        doc = risk_control(con, opts)
        command_id = record_command(con, "risk-control", doc["inputs"], doc["options"])
        store_results(con, command_id, opts.procedure, doc)
        if opts.group is not None:
            con.executemany(
                "INSERT INTO risk_control_group_coverage VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                group_coverage.stored_rows(command_id, opts.group, doc["rows"]),
            )
        full = {"command_id": command_id, **doc}
        tx.stored = f"risk-control command {command_id}"
        if output is not None:  # renamed into place right after COMMIT: no file unless stored
            write_on_commit(tx, full, output)
    return full
