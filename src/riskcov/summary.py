"""The console summary of an evaluation: one rich table per confidence function."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def _fmt(value: float | None, ci: list[float] | None = None) -> str:
    if value is None:
        return "n/a"
    text = f"{value:.4f}"
    return f"{text} [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else text


def _row(label: str, m: dict[str, Any]) -> list[str]:
    ci = m["bootstrap"].get("ci95", {}) if m["bootstrap"] else {}
    return [label, _fmt(m["cmax"], ci.get("cmax")), _fmt(m["aurc_full"], ci.get("aurc_full")),
            _fmt(m["augrc_full"], ci.get("augrc_full")), _fmt(m["aurc_optimal"]),
            _fmt(m["eaurc"]), _fmt(m["aurc_at_c"]["value"], ci.get("aurc_at_c"))]


def render(art: dict[str, Any], console: Console, artifact_path: str | None) -> None:
    """Print the population line, a table per CSF and, when paired, the deltas."""
    pop = art["population"]
    console.print(f"loss {art['loss']['name']}, estimator {art['estimator']}: "
                  f"{pop['participants_included']} participants included, "
                  f"{pop['participants_failed']} failed, {pop['items_total']} items")
    paired = art["comparison"]["enabled"]
    for name, entry in art["confidence_variants"].items():
        table = Table(title=f"confidence {name}", title_justify="left")
        for col in ("input", "Cmax", "AURC", "AUGRC", "AURC optimal", "excess AURC",
                    f"AURC@{art['options']['area_coverage']}"):
            table.add_column(col)
        if paired:
            for key, label in (("input_0", "left"), ("input_1", "right")):
                table.add_row(*_row(label, entry[key]))
            for metric, d in art["comparison"]["deltas"][name].items():
                if metric in ("cmax", "aurc_full", "augrc_full", "aurc_at_c"):
                    table.add_section()
                    table.add_row(f"delta {metric}", _fmt(d["delta"], d["ci95"]),
                                  "", "", "", "", "")
        else:
            table.add_row(*_row(art["inputs"][0]["mode"] or "-", entry))
        console.print(table)
    if art.get("skipped_variants"):
        console.print("skipped: " + ", ".join(art["skipped_variants"]))
    if artifact_path:
        console.print(f"artifact: {artifact_path}")
