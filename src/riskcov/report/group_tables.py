"""How an evaluation's per-group metrics (`evaluate --group`, docs/metrics-extended.md) are
stored, printed and drawn: one long row per (CSF, group, metric) as in the table
evaluation_group_metrics, read from an artifact's `groups` block or from the warehouse."""

from __future__ import annotations

from html import escape
from typing import Any

from riskcov.report.keys import grid_key

# (csf, group value or None for a gap row, metric, value, ci_low, ci_high)
GroupRow = tuple[str, str | None, str, float | None, float | None, float | None]
# the per-group scalars with a CI, in the order shown
SCALARS = (("cmax", "Cmax"), ("aurc_full", "AURC"), ("augrc_full", "AUGRC"))


def rows(block: dict[str, Any]) -> list[GroupRow]:
    """The rows of an artifact's `groups` block: per CSF and group n, the scalars and
    coverage_at_risk_<a> (the group's own, with CIs), group_coverage_<a> (the group's coverage
    at the CSF's Coverage@Risk(a) threshold on everyone); per CSF coverage_gap_<a> (group None).

    >>> block = {"metrics": {"c": {"x": {"n": 2, "cmax": 1.0, "aurc_full": 0.5, "augrc_full": 0.25,
    ...     "coverage_at_risk": {"0.10": 0.5}, "ci95": {"cmax": None, "aurc_full": None,
    ...     "augrc_full": None, "coverage_at_risk": {"0.10": None}}}}},
    ...     "coverage_gaps": {"c": {"0.10": {"threshold": 0.7, "coverage": {"x": 0.5}, "gap": 0.0}}}}
    >>> [r[2:4] for r in rows(block)]  # doctest: +NORMALIZE_WHITESPACE
    [('n', 2.0), ('cmax', 1.0), ('aurc_full', 0.5), ('augrc_full', 0.25), ('coverage_at_risk_0.10', 0.5),
     ('group_coverage_0.10', 0.5), ('coverage_gap_0.10', 0.0)]
    """
    out: list[GroupRow] = []
    for csf, per_group in block["metrics"].items():
        gaps = block["coverage_gaps"][csf]
        for group, m in per_group.items():
            ci = m["ci95"]
            out.append((csf, group, "n", float(m["n"]), None, None))
            for key, _ in SCALARS:
                out.append((csf, group, key, m[key], *_bounds(ci[key])))
            for a, value in m["coverage_at_risk"].items():
                out.append((csf, group, f"coverage_at_risk_{a}", value, *_bounds(ci["coverage_at_risk"][a])))
            for a, gap in gaps.items():
                out.append((csf, group, f"group_coverage_{a}", gap["coverage"].get(group), None, None))
        for a, gap in gaps.items():
            out.append((csf, None, f"coverage_gap_{a}", gap["gap"], None, None))
    return out


def _bounds(ci: list[float] | None) -> tuple[float | None, float | None]:
    return (ci[0], ci[1]) if ci else (None, None)


def _fmt(value: float | None, lo: float | None = None, hi: float | None = None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.4f} [{lo:.4f}, {hi:.4f}]" if lo is not None and hi is not None else f"{value:.4f}"


def table(found: list[GroupRow], column: str, alphas: list[float]) -> tuple[str, list[str], list[list[str]]]:
    """The console's (and the report's) per-group table: title, header, rows. Per CSF one row
    per group (n, the scalars with CIs, its coverage at each Coverage@Risk threshold), then
    the gap row (largest minus smallest of those coverages)."""
    keys = [grid_key(a) for a in alphas]
    header = ["confidence", column, "n", *(label for _, label in SCALARS)]
    header += [f"cov@thr {k}" for k in keys]
    by: dict[tuple[str, str | None, str], GroupRow] = {(r[0], r[1], r[2]): r for r in found}
    out: list[list[str]] = []
    for csf in dict.fromkeys(r[0] for r in found):
        for group in dict.fromkeys(r[1] for r in found if r[0] == csf and r[1] is not None):
            n = by[(csf, group, "n")][3]
            cells = [csf, group, "n/a" if n is None else str(int(n))]
            cells += [_fmt(*by[(csf, group, key)][3:]) for key, _ in SCALARS]
            cells += [_fmt(_get(by, (csf, group, f"group_coverage_{k}"))) for k in keys]
            out.append(cells)
        gaps = [_fmt(_get(by, (csf, None, f"coverage_gap_{k}"))) for k in keys]
        out.append([csf, "(gap)", "", "", "", "", *gaps])
    title = (
        f"per {column}, 95% CI over the same resamples; cov@thr a: each group's coverage at the "
        "CSF's Coverage@Risk(a) threshold, gap = largest - smallest"
    )
    return title, header, out


def _get(by: dict[tuple[str, str | None, str], GroupRow], key: tuple[str, str | None, str]) -> float | None:
    row = by.get(key)
    return None if row is None else row[3]


def alphas_of(found: list[GroupRow]) -> list[float]:
    """The alphas of the coverage gaps, in the order stored.

    >>> alphas_of([("c", None, "coverage_gap_0.10", 0.0, None, None)])
    [0.1]
    """
    return list(dict.fromkeys(float(r[2].removeprefix("coverage_gap_")) for r in found if r[1] is None))


def html(found: list[GroupRow], column: str | None) -> str:
    """The report's section; empty when the evaluation has no groups."""
    if not found or column is None:
        return ""
    title, header, body = table(found, column, alphas_of(found))
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    trs = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>" for cells in body)
    return (
        f'<h2>Per {escape(column)}</h2><p class="note">{escape(title)}.</p>'
        f'<table class="groups"><tr>{head}</tr>{trs}</table>'
    )
