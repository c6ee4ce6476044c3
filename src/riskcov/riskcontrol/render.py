"""Text forms of the risk-control documents: rich console tables, and compare's markdown and CSV.

>>> pct(0.6531, 0.0212)
'65.3 ± 2.1%'
>>> pct(None)
'-'
"""

from __future__ import annotations

import csv
import io
from typing import Any

from rich.console import Console
from rich.table import Table


def pct(mean: float | None, std: float | None = None) -> str:
    """A share as a percentage with one decimal, and its standard deviation when given."""
    if mean is None:
        return "-"
    return f"{100 * mean:.1f}%" if std is None else f"{100 * mean:.1f} ± {100 * std:.1f}%"


def num(mean: float | None, std: float | None = None, digits: int = 4) -> str:
    """A number with `digits` decimals, and its standard deviation when given.

    >>> num(0.01234, 0.0021)
    '0.0123 ± 0.0021'
    """
    if mean is None:
        return "-"
    return f"{mean:.{digits}f}" if std is None else f"{mean:.{digits}f} ± {std:.{digits}f}"


def _table(title: str, header: list[str], rows: list[list[str]]) -> Table:
    table = Table(title=title, title_justify="left")
    for i, h in enumerate(header):
        table.add_column(h, justify="left" if i == 0 else "right")
    for r in rows:
        table.add_row(*r)
    return table


def risk_control(doc: dict[str, Any], console: Console) -> None:
    """The per-(method, alpha, rule) summary: violation rates and test coverage and risk."""
    opts = doc["options"]
    margin = opts["violation_margin"]
    header = ["method", "alpha", "rule", "seeds", "violation rate"]
    header += [f"viol. (margin {margin:g})"] if margin is not None else []
    header += ["test coverage", "test risk"]
    rows = []
    for s in doc["summary"]:
        row = [s["method"], f"{s['alpha']:g}", s["rule"], str(s["num_seeds"]), pct(s["violation_rate"])]
        row += [pct(s["violation_rate_margin"])] if margin is not None else []
        row += [pct(s["mean_coverage"], s["std_coverage"]), num(s["mean_risk"], s["std_risk"])]
        rows.append(row)
    title = (
        f"risk-control ({doc['csf']}; {opts['bound']}, {opts['procedure']}, delta {opts['delta']:g}, "
        f"{opts['cal_split']} -> {opts['test_split']}; command {doc['command_id']})"
    )
    console.print(_table(title, header, rows))
    if doc.get("group_gaps"):  # --group: the coverage gap between the groups on test
        gaps = [
            [g["method"], f"{g['alpha']:g}", g["rule"], pct(g["mean_gap"], g["std_gap"]), pct(g["max_gap"])]
            for g in doc["group_gaps"]
        ]
        header = ["method", "alpha", "rule", "coverage gap", "largest gap"]
        console.print(_table(f"coverage gap between the {opts['group']} groups on test", header, gaps))


def ood(doc: dict[str, Any], console: Console) -> None:
    """Per method: OOD acceptance at each ID coverage target, AUROC and FPR@95%TPR."""
    targets = doc["options"]["id_coverage"]
    header = ["method", "seeds", *(f"OOD@{100 * c:g}% ID" for c in targets), "AUROC", "FPR@95%TPR"]
    rows = [
        [
            s["method"],
            str(len(s["seeds"])),
            *(pct(t["mean_ood_accept_rate"], t["std_ood_accept_rate"]) for t in s["id_coverage"]),
            num(s["mean_auroc"], s["std_auroc"]),
            pct(s["mean_fpr_at_95_tpr"], s["std_fpr_at_95_tpr"]),
        ]
        for s in doc["summary"]
    ]
    title = f"ood ({doc['csf']}; split {doc['options']['split']}; command {doc['command_id']})"
    console.print(_table(title, header, rows))


def compare_cells(doc: dict[str, Any], with_seeds: bool = False) -> tuple[list[str], list[list[str]]]:
    """Header and formatted cells of the comparison table (the seed's columns, and the number
    of seeds when asked)."""
    opts = doc["options"]
    header = [
        "Method",
        *(["Seeds"] if with_seeds else []),
        f"Coverage@Risk({opts['alpha']:g})",
        "Violation Rate",
    ]
    header += [f"OOD@{100 * c:g}% ID" for c in opts["id_coverage"]] + ["AURC"]
    from riskcov.riskcontrol.compare import ood_key

    rows = [
        [
            r["method"],
            *([str(len(r["seeds"]))] if with_seeds else []),
            pct(r["coverage_at_risk_mean"], r["coverage_at_risk_std"]),
            pct(r["violation_rate"]),
            *(pct(r[ood_key(c)]) for c in opts["id_coverage"]),
            num(r["aurc_mean"], r["aurc_std"]),
        ]
        for r in doc["rows"]
    ]
    return header, rows


def compare_table(doc: dict[str, Any], console: Console) -> None:
    """The comparison table with a column of seed counts."""
    header, rows = compare_cells(doc, with_seeds=True)
    opts = doc["options"]
    title = (
        f"compare ({doc['csf']}; {opts['test_split']} split; "
        f"certified: {opts['bound']}, delta {opts['delta']:g})"
    )
    console.print(_table(title, header, rows))


def compare_markdown(doc: dict[str, Any]) -> str:
    """The table a paper pastes (GitHub markdown).

    >>> print(compare_markdown({"options": {"alpha": 0.1, "id_coverage": []}, "rows": []}))
    | Method | Coverage@Risk(0.1) | Violation Rate | AURC |
    |---|---|---|---|
    """
    header, rows = compare_cells(doc)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _csv_cell(value: Any) -> str:
    """Seeds joined by ';', floats in full (repr), None empty."""
    if isinstance(value, list):
        return ";".join(map(str, value))
    return "" if value is None else repr(value) if isinstance(value, float) else str(value)


def compare_csv(doc: dict[str, Any]) -> str:
    """One line per method with the raw numbers, under the JSON row keys."""
    out = io.StringIO()
    keys = list(doc["rows"][0]) if doc["rows"] else ["method"]
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(keys)
    for r in doc["rows"]:
        writer.writerow([_csv_cell(r[k]) for k in keys])
    return out.getvalue().rstrip("\n")
