"""`riskcov report`: one self-contained HTML page (inline CSS and SVG, no script, nothing fetched)
with the population, the metrics with their CIs, the paired deltas and the curves."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from riskcov.report import group_tables, rank_tables, svg
from riskcov.report.curves import merge_identical
from riskcov.report.keys import shown
from riskcov.report.report_data import ReportData, Row
from riskcov.warehouse.files import write_output

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 1.5em; max-width: 72em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; } h3 { font-size: 1em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }
td.num, td.ci { text-align: right; font-variant-numeric: tabular-nums; }
tr.excludes-zero td { background: #fff4d6; }
.panels { display: flex; flex-wrap: wrap; gap: 1em; }
svg text { font-size: 11px; fill: #222; } svg text.title { font-size: 13px; }
ul.legend { list-style: none; padding: 0; }
.swatch { display: inline-block; width: 1.5em; height: 0.3em; margin-right: 0.5em; vertical-align: middle; }
.note { color: #666; }
"""


def e(value: Any) -> str:
    """HTML-escaped text of any value (quotes too, so it is safe inside attributes).

    >>> e('<b a="1">')
    '&lt;b a=&quot;1&quot;&gt;'
    """
    return escape(str(value), quote=True)


def _fmt(v: float | None) -> str:
    """A number as shown (4 significant digits), an em dash for none.

    >>> _fmt(0.066049994), _fmt(None)
    ('0.06605', '—')
    """
    return "—" if v is None else f"{v:.4g}"


def _value_cell(v: float | None) -> str:
    # data-value keeps the exact number (repr round-trips a float) for readers and tests
    return f'<td class="num" data-value="{"null" if v is None else repr(float(v))}">{_fmt(v)}</td>'


def _ci_cell(lo: float | None, hi: float | None) -> str:
    if lo is None or hi is None:
        return '<td class="ci" data-low="null" data-high="null">—</td>'
    return f'<td class="ci" data-low="{float(lo)!r}" data-high="{float(hi)!r}">[{_fmt(lo)}, {_fmt(hi)}]</td>'


def _kv_table(cls: str, pairs: dict[str, Any]) -> str:
    body = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in pairs.items())
    return f'<table class="{cls}">{body}</table>'


def _input_cell(column: str, value: Any) -> str:
    if column == "sha256" and value:  # the full hash on hover; 12 hex digits are enough to read
        return f'<td title="{e(value)}">{e(str(value)[:12])}…</td>'
    return f"<td>{e('' if value is None else value)}</td>"


def _inputs_table(inputs: list[dict[str, Any]]) -> str:
    names = ("path", "run_id", "mode", "method", "seed", "split", "domain", "experiment_id", "sha256")
    cols = [c for c in names if any(i.get(c) is not None for i in inputs)]
    head = "<tr><th>input</th>" + "".join(f"<th>{e(c)}</th>" for c in cols) + "</tr>"
    body = "".join(
        f"<tr><td>input_{k}</td>" + "".join(_input_cell(c, i.get(c)) for c in cols) + "</tr>"
        for k, i in enumerate(inputs)
    )
    return f'<table class="inputs">{head}{body}</table>'


def _metrics_tables(rows: list[Row], labels: list[str], per_sample: bool = False) -> str:
    by_csf: dict[str, dict[str, dict[str, Row]]] = {}
    for r in rows:
        if r[0] != "delta":
            by_csf.setdefault(r[1], {}).setdefault(r[2], {})[r[0]] = r
    out = []
    for csf, metrics in by_csf.items():
        head = "<tr><th>metric</th>" + "".join(
            f'<th colspan="2">{e(label)}: value, 95% CI</th>' for label in labels
        )
        body = []
        for metric, per_input in metrics.items():
            cells = []
            for k in range(len(labels)):
                got = per_input.get(f"input_{k}")
                cells.append(
                    _value_cell(None) + _ci_cell(None, None)
                    if got is None
                    else _value_cell(got[3]) + _ci_cell(got[4], got[5])
                )
            body.append(
                f'<tr data-metric="{e(metric)}"><th>{e(shown(metric, per_sample))}</th>{"".join(cells)}</tr>'
            )
        out.append(
            f'<h3>{e(csf)}</h3><table class="metrics" data-csf="{e(csf)}">{head}</tr>{"".join(body)}</table>'
        )
    return "".join(out)


def _deltas_table(rows: list[Row]) -> str:
    deltas = [r for r in rows if r[0] == "delta"]
    if not deltas:
        return '<p class="note">A single input: no paired comparison.</p>'
    body = "".join(
        f'<tr data-csf="{e(r[1])}" data-metric="{e(r[2])}"'
        + (
            ' class="excludes-zero"'
            if r[4] is not None and r[5] is not None and (r[4] > 0 or r[5] < 0)
            else ""
        )
        + f"><th>{e(r[1])}</th><th>{e(r[2])}</th>{_value_cell(r[3])}{_ci_cell(r[4], r[5])}</tr>"
        for r in deltas
    )
    return (
        '<p class="note">input_1 minus input_0; highlighted rows have a 95% CI that excludes 0.</p>'
        '<table class="deltas"><tr><th>CSF</th><th>metric</th><th>delta</th><th>95% CI</th></tr>'
        f"{body}</table>"
    )


def _ranks(rows: list[Row]) -> str:
    """The rank stability of the CSFs (docs/metrics-extended.md), when the evaluation has it."""
    drawn = rank_tables.bars(rank_tables.shares_from_rows(rows))
    return f"<h2>Rank stability</h2>{drawn}" if drawn else ""


def render(data: ReportData) -> str:
    """The whole page."""
    from riskcov.report.curves import input_names

    labels = [f"input_{k} ({n})" for k, n in enumerate(input_names(data.inputs))]
    per_sample = any(i.get("method") is not None for i in data.inputs)
    if data.population is None:
        population = (
            f'<p class="note">{e(data.source)}: the warehouse does not store the population; '
            "render the report from the evaluation's artifact (--artifact) to show it.</p>"
        )
    else:
        population = _kv_table("population", {shown(k, per_sample): v for k, v in data.population.items()})
    skipped = (
        "<h2>Skipped confidence functions</h2>" + _kv_table("skipped", data.skipped) if data.skipped else ""
    )
    panels = "".join(
        svg.panel(merge_identical(data.lines), key, title)
        for key, title in (
            ("selective_risk", "RC curve: selective risk"),
            ("generalized_risk", "generalized risk"),
        )
    )
    title = f"riskcov report: {data.source}"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(title)}</title>
<style>{CSS}</style>
</head>
<body>
<h1>{e(title)}</h1>
<p>Created {e(data.created_at)}.</p>
<h2>Inputs</h2>
{_inputs_table(data.inputs)}
{_kv_table("settings", data.settings)}
<h2>Population</h2>
{population}
<h2>Curves</h2>
<div class="panels">{panels}</div>
{svg.legend(merge_identical(data.lines))}
<h2>Metrics</h2>
{_metrics_tables(data.rows, labels, per_sample)}
{_ranks(data.rows)}
{group_tables.html(data.groups, data.group_column)}
<h2>Paired deltas</h2>
{_deltas_table(data.rows)}
{skipped}
</body>
</html>
"""


def write(page: str, path: Path) -> None:
    """Write the page atomically (riskcov.warehouse.files: a device is written in place, never replaced)."""
    write_output(path, page, "the report")


def report_file(data: ReportData, output: Path) -> None:
    """`riskcov report`: render the page and write it to `output`."""
    write(render(data), output)
