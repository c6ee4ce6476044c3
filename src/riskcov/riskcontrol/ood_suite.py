"""`riskcov ood` (docs/risk-control.md): per method and seed, the ID and OOD experiments of one split
compared through `riskcov.riskcontrol.ood` (acceptance at fixed ID coverage, DAR at thresholds, AUROC,
FPR@95%TPR), per method the mean ± std over seeds; the rows are stored with the options."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from riskcov.errors import InputError, UsageError
from riskcov.report.artifact import write_on_commit
from riskcov.riskcontrol import experiments as ex
from riskcov.riskcontrol import ood
from riskcov.riskcontrol.command_options import InputOptions
from riskcov.riskcontrol.seed_summary import mean_std
from riskcov.riskcontrol.store import record_command
from riskcov.warehouse.duckdb_helpers import transaction

STORED = (
    "method",
    "seed",
    "split",
    "csf",
    "id_experiment_id",
    "ood_experiment_id",
    "kind",
    "target",
    "id_coverage_target",
    "threshold",
    "id_coverage_actual",
    "ood_accept_rate",
    "dar",
    "safety_ratio",
    "auroc",
    "fpr_at_95_tpr",
)


@dataclass
class Options(InputOptions):
    """The command's flags; `check` refuses bad ones before the warehouse is opened."""

    id_coverage: list[float] = field(default_factory=lambda: list(ood.DEFAULT_TARGETS))
    thresholds: list[float] = field(default_factory=list)
    split: str = "test"

    def check(self) -> None:
        self.check_inputs()
        if not self.id_coverage:
            raise UsageError("--id-coverage needs at least one value")
        for flag, values in (("--id-coverage", self.id_coverage), ("--thresholds", self.thresholds)):
            if len(set(values)) != len(values):
                raise UsageError(f"{flag} {','.join(map(str, values))}: a value is repeated")
        for c in self.id_coverage:
            if not 0.0 <= c <= 1.0:
                raise UsageError(f"--id-coverage {c!r} must lie in [0, 1]")


def domain_pairs(
    found: list[ex.Experiment], split: str
) -> dict[tuple[str, int], tuple[ex.Experiment, ex.Experiment]]:
    """(method, seed) -> its id and ood experiments of `split`; a seed with one domain only is
    refused, naming what is missing."""
    by: dict[tuple[str, int], dict[str, ex.Experiment]] = {}
    for e in found:
        if e.key.split == split and e.key.domain in ("id", "ood"):
            by.setdefault((e.key.method, e.key.seed), {})[e.key.domain] = e
    if not by:
        raise InputError(f"the inputs have no experiment in split {split}")
    for (method, seed), domains in sorted(by.items()):
        for domain in ("id", "ood"):
            if domain not in domains:
                raise InputError(f"method {method} seed {seed} has no {domain} experiment in split {split}")
    return {k: (v["id"], v["ood"]) for k, v in sorted(by.items())}


def seed_results(
    con: duckdb.DuckDBPyConnection, found: list[ex.Experiment], csf: str, opts: Options
) -> list[dict[str, Any]]:
    """Per (method, seed): its rows at the ID coverage targets, DAR at the thresholds, AUROC
    and FPR@95%TPR."""
    out = []
    for (method, seed), (id_e, ood_e) in domain_pairs(found, opts.split).items():
        i, o = ex.load(con, id_e, csf), ex.load(con, ood_e, csf)
        args = (i.confidence, i.abstained, o.confidence, o.abstained)
        try:
            at_coverage = ood.ood_at_id_coverage(con, *args, opts.id_coverage)
            dar = ood.dar_at_thresholds(con, *args, opts.thresholds)
            fpr = ood.fpr_at_95_tpr(con, *args)
            auroc = ood.auroc(con, *args)
        except InputError as exc:
            raise InputError(f"method {method} seed {seed} split {opts.split}: {exc}") from None
        head = {"method": method, "seed": seed}
        out.append(
            {
                **head,
                "split": opts.split,
                "csf": csf,
                "id_experiment_id": id_e.experiment_id,
                "ood_experiment_id": ood_e.experiment_id,
                "rows": [{**head, **r} for r in at_coverage],
                "dar_at_thresholds": [{**head, **r} for r in dar],
                "auroc": auroc,
                "fpr_at_95_tpr": fpr,
            }
        )
    return out


def _stat(name: str, values: list[float]) -> dict[str, float | None]:
    mean, std = mean_std(values)
    return {f"mean_{name}": mean, f"std_{name}": std}


def summarise(results: list[dict[str, Any]], targets: list[float]) -> list[dict[str, Any]]:
    """Per method: mean ± std (ddof 0) over its seeds, per target and of AUROC, FPR@95%TPR."""
    methods = sorted({r["method"] for r in results})
    out = []
    for m in methods:
        mine = [r for r in results if r["method"] == m]
        per_target = []
        for k, c in enumerate(targets):
            rows = [r["rows"][k] for r in mine]
            per_target.append(
                {
                    "id_coverage_target": c,
                    **_stat("id_coverage_actual", [x["id_coverage_actual"] for x in rows]),
                    **_stat("ood_accept_rate", [x["ood_accept_rate"] for x in rows]),
                    **_stat("safety_ratio", [x["safety_ratio"] for x in rows]),
                }
            )
        aurocs = [r["auroc"] for r in mine if r["auroc"] is not None]
        out.append(
            {
                "method": m,
                "seeds": [r["seed"] for r in mine],
                "id_coverage": per_target,
                **_stat("auroc", aurocs),
                **_stat("fpr_at_95_tpr", [r["fpr_at_95_tpr"] for r in mine]),
            }
        )
    return out


def run_ood(con: duckdb.DuckDBPyConnection, opts: Options) -> dict[str, Any]:
    """The command's document, computed without storing anything."""
    opts.check()
    found = ex.resolve(con, opts.inputs, opts.methods)
    chosen = [e for e in found if e.key.split == opts.split and e.key.domain in ("id", "ood")]
    domain_pairs(found, opts.split)  # what is missing, before which column to read
    csf = ex.choose_csf(con, chosen, opts.confidence)
    results = seed_results(con, found, csf, opts)
    return {
        "command": "ood",
        "inputs": sorted({e.run_id for e in chosen}),
        "csf": csf,
        "options": opts.recorded(),
        "seeds": results,
        "summary": summarise(results, opts.id_coverage),
    }


def stored_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The ood_results rows of a document: kind id_coverage per target, threshold per DAR."""
    out = []
    for r in doc["seeds"]:
        common = {
            k: r[k]
            for k in ("split", "csf", "id_experiment_id", "ood_experiment_id", "auroc", "fpr_at_95_tpr")
        }
        for x in r["rows"]:
            out.append({**common, **x, "kind": "id_coverage", "target": x["id_coverage_target"]})
        for x in r["dar_at_thresholds"]:
            out.append(
                {
                    **common,
                    **x,
                    "kind": "threshold",
                    "target": x["threshold"],
                    "id_coverage_target": None,
                    "id_coverage_actual": x["id_accept_rate"],
                    "safety_ratio": None,
                }
            )
    return out


def ood_and_store(
    con: duckdb.DuckDBPyConnection, opts: Options, output: Path | None = None
) -> dict[str, Any]:
    """run_ood, its rows stored under a new command id, in one transaction."""
    opts.check()
    with transaction(con) as tx:
        doc = run_ood(con, opts)
        command_id = record_command(con, "ood", doc["inputs"], doc["options"])
        con.executemany(
            f"INSERT INTO ood_results (command_id, {', '.join(STORED)}) "
            f"VALUES (?, {', '.join('?' for _ in STORED)})",
            [[command_id, *(r[c] for c in STORED)] for r in stored_rows(doc)],
        )
        full = {"command_id": command_id, **doc}
        tx.stored = f"ood command {command_id}"
        if output is not None:  # renamed into place right after COMMIT: no file unless stored
            write_on_commit(tx, full, output)
    return full
