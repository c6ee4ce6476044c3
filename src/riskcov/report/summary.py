"""The console summary of an evaluation: one rich table per confidence function."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from riskcov.report.keys import SUMMARY, MetricKey, value_of


def _fmt(value: float | None, ci: list[float] | None = None) -> str:
    if value is None:
        return "n/a"
    text = f"{value:.4f}"
    return f"{text} [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else text


def _cell(m: dict[str, Any], key: MetricKey) -> str:
    ci = m["bootstrap"].get("ci95", {}) if m["bootstrap"] else {}
    value = value_of(m, key)
    return _fmt(value if isinstance(value, float) else None, ci.get(key.key))


def label(inp: dict[str, Any]) -> str:
    """A column title for an input: its PHQ-8 mode, or a per-sample experiment's selection.

    >>> label({"mode": None, "method": "msp", "seed": 3, "split": "test", "domain": "id"})
    'msp seed 3 test/id'
    """
    if inp.get("method") is not None:
        return f"{inp['method']} seed {inp['seed']} {inp['split']}/{inp['domain']}"
    return str(inp["mode"] or "value")


def render(art: dict[str, Any], console: Console, artifact_path: str | None) -> None:
    """Print the population line, a table per CSF (paired: left, right, delta)."""
    pop = art["population"]
    per_sample = art["inputs"][0].get("method") is not None
    units, items = ("clusters", "samples") if per_sample else ("participants", "items")
    console.print(
        f"loss {art['loss']['name']}, estimator {art['estimator']}, "
        f"C = {art['options']['area_coverage']}: {pop['participants_included']} "
        f"{units} included, {pop['participants_failed']} failed, "
        f"{pop['items_total']} {items}"
    )
    paired = art["comparison"]["enabled"]
    boot = art["options"]["bootstrap_resamples"]
    ci_note = f", 95% CI from {boot} resamples" if boot > 0 else ""
    for name, entry in art["confidence_variants"].items():
        table = Table(title=f"confidence {name}{ci_note}", title_justify="left")
        table.add_column("metric")
        if paired:
            left, right = art["inputs"]
            table.add_column(f"left: {label(left)}")
            table.add_column(f"right: {label(right)}")
            table.add_column("delta (right - left)")
            deltas = art["comparison"]["deltas"][name]
            for key in SUMMARY:
                d = deltas.get(key.key)
                table.add_row(
                    key.label,
                    _cell(entry["input_0"], key),
                    _cell(entry["input_1"], key),
                    _fmt(d["delta"], d["ci95"] if boot > 0 else None) if d else "",
                )
        else:
            table.add_column(label(art["inputs"][0]))
            for key in SUMMARY:
                table.add_row(key.label, _cell(entry, key))
        console.print(table)
    if art.get("skipped_variants"):
        console.print("skipped: " + ", ".join(art["skipped_variants"]))
    if artifact_path:
        console.print(f"artifact: {artifact_path}")
