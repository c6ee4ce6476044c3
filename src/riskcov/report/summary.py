"""The console summary of an evaluation: per CSF its metrics (MAE@coverage and Coverage@Risk
included), and with several CSFs one ranking table by AURC; CSFs with the very same numbers
(aliases such as total_evidence = llm) are shown once, with a note."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from riskcov.report.keys import SUMMARY, MetricKey, value_of

DETAIL_LIMIT = 2  # more CSFs than this: the ranking table instead of a table per CSF


def _fmt(value: float | None, ci: list[float] | None = None) -> str:
    if value is None:
        return "n/a"
    text = f"{value:.4f}"
    return f"{text} [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else text


def _ci(m: dict[str, Any]) -> dict[str, Any]:
    return m["bootstrap"].get("ci95", {}) if m["bootstrap"] else {}


def _cell(m: dict[str, Any], key: MetricKey) -> str:
    value = value_of(m, key)
    return _fmt(value if isinstance(value, float) else None, _ci(m).get(key.key))


def _rows(m: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, cell) of one input's METRICS: the summary scalars, MAE@coverage, Coverage@Risk."""
    rows = [(key.label, _cell(m, key)) for key in SUMMARY]
    ci = _ci(m)
    for c, hit in m["mae_at_coverage"].items():
        value = hit["value"] if hit else None
        rows.append((f"MAE@{c}", _fmt(value, ci.get("mae_at_coverage", {}).get(c))))
    for a, car in m["coverage_at_risk"].items():
        rows.append((f"Coverage@Risk {a}", _fmt(car["coverage"], ci.get("coverage_at_risk", {}).get(a))))
    return rows


def label(inp: dict[str, Any]) -> str:
    """A column title for an input: its PHQ-8 mode, or a per-sample experiment's selection.

    >>> label({"mode": None, "method": "msp", "seed": 3, "split": "test", "domain": "id"})
    'msp seed 3 test/id'
    """
    if inp.get("method") is not None:
        return f"{inp['method']} seed {inp['seed']} {inp['split']}/{inp['domain']}"
    return str(inp["mode"] or "value")


def aliases(variants: dict[str, Any]) -> dict[str, list[str]]:
    """First CSF name -> the later names whose numbers are all the same (one ranking: aliases).

    >>> aliases({"llm": {"a": 1}, "total_evidence": {"a": 1}, "token_msp": {"a": 2}})
    {'llm': ['total_evidence'], 'token_msp': []}
    """
    out: dict[str, list[str]] = {}
    for name, entry in variants.items():
        first = next((k for k in out if variants[k] == entry), None)
        if first is None:
            out[name] = []
        else:
            out[first].append(name)
    return out


def render(art: dict[str, Any], console: Console, artifact_path: str | None) -> None:
    """Print the population line; per CSF a table (paired: left, right, delta) when there are
    at most DETAIL_LIMIT of them, else one ranking table; then the aliases and the artifact."""
    pop = art["population"]
    per_sample = art["inputs"][0].get("method") is not None
    units, items = ("clusters", "samples") if per_sample else ("participants", "items")
    console.print(
        f"loss {art['loss']['name']}, estimator {art['estimator']}, "
        f"C = {art['options']['area_coverage']}: {pop['participants_included']} "
        f"{units} included, {pop['participants_failed']} failed, "
        f"{pop['items_total']} {items}"
    )
    boot = art["options"]["bootstrap_resamples"]
    ci_note = f", 95% CI from {boot} resamples" if boot > 0 else ""
    groups = aliases(art["confidence_variants"])
    if len(groups) <= DETAIL_LIMIT:
        for name in groups:
            console.print(_detail(art, name, ci_note))
    else:
        console.print(_ranking(art, list(groups), ci_note))
    for name, same in groups.items():
        if same:
            console.print(f"{', '.join(same)}: the same numbers as {name} (shown once)")
    if art.get("skipped_variants"):
        console.print("skipped: " + ", ".join(art["skipped_variants"]))
    if artifact_path:
        console.print(f"artifact: {artifact_path}")


def _detail(art: dict[str, Any], name: str, ci_note: str) -> Table:
    entry = art["confidence_variants"][name]
    table = Table(title=f"confidence {name}{ci_note}", title_justify="left")
    table.add_column("metric")
    if not art["comparison"]["enabled"]:
        table.add_column(label(art["inputs"][0]))
        for row in _rows(entry):
            table.add_row(*row)
        return table
    left, right = art["inputs"]
    table.add_column(f"left: {label(left)}")
    table.add_column(f"right: {label(right)}")
    table.add_column("delta (right - left)")
    deltas = art["comparison"]["deltas"][name]
    delta_of = {key.label: deltas.get(key.key) for key in SUMMARY}
    delta_of.update(
        {f"MAE@{c}": deltas.get(f"mae_at_coverage_{c}") for c in entry["input_0"]["mae_at_coverage"]}
    )
    boot = art["options"]["bootstrap_resamples"]
    for (text, a), (_, b) in zip(_rows(entry["input_0"]), _rows(entry["input_1"]), strict=True):
        d = delta_of.get(text)
        table.add_row(text, a, b, _fmt(d["delta"], d["ci95"] if boot > 0 else None) if d else "")
    return table


def _ranking(art: dict[str, Any], names: list[str], ci_note: str) -> Table:
    """One row per CSF sorted by AURC (paired: by the right input's, with the delta)."""
    paired = art["comparison"]["enabled"]
    variants = art["confidence_variants"]
    ranked = [k for k in SUMMARY if k.key in ("aurc_full", "augrc_full", "eaurc")]

    def metrics(name: str) -> dict[str, Any]:
        entry: dict[str, Any] = variants[name]
        return entry["input_1"] if paired else entry

    order = sorted(names, key=lambda n: (metrics(n)["aurc_full"], n))
    title = "CSFs by AURC" + (f" of the right input ({label(art['inputs'][1])})" if paired else "") + ci_note
    table = Table(title=title, title_justify="left")
    table.add_column("#", no_wrap=True)
    table.add_column("confidence", no_wrap=True)
    for key in ranked:
        table.add_column(key.label, no_wrap=True)
    if paired:
        table.add_column(f"AURC right - {label(art['inputs'][0])}", no_wrap=True)
    boot = art["options"]["bootstrap_resamples"]
    for rank, name in enumerate(order, start=1):
        m = metrics(name)
        cells = [str(rank), name, *(_cell(m, key) for key in ranked)]
        if paired:
            d = art["comparison"]["deltas"][name]["aurc_full"]
            cells.append(_fmt(d["delta"], d["ci95"] if boot > 0 else None))
        table.add_row(*cells)
    return table
