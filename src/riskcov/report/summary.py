"""The console summary of an evaluation: per CSF its metrics (MAE@coverage and Coverage@Risk
included), and with several CSFs one ranking table by AURC; CSFs with the very same numbers
(aliases such as total_evidence = llm) are shown once, with a note."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from riskcov.report.keys import SUMMARY, MetricKey, value_of

if TYPE_CHECKING:  # rich only where it draws the summary (to a terminal; see `show`)
    from rich.console import Console

DETAIL_LIMIT = 2  # more CSFs than this: the ranking table instead of a table per CSF
WIDTH = 160  # the console's width


@dataclass
class Table:
    """A table of the summary: its title, columns (header, no_wrap) and rows of cells."""

    title: str
    columns: list[tuple[str, bool]]
    rows: list[list[str]]

    def add_column(self, header: str, no_wrap: bool = False) -> None:
        self.columns.append((header, no_wrap))

    def add_row(self, *cells: str) -> None:
        self.rows.append(list(cells))


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


def at_coverage(per_sample: bool) -> str:
    """The label of mae_at_coverage: the mean loss of the kept units at a coverage, which for a
    per-sample run is its selective risk (the artifact key stays, docs/python.md)."""
    return "risk@" if per_sample else "MAE@"


def _rows(m: dict[str, Any], per_sample: bool = False) -> list[tuple[str, str]]:
    """(label, cell) of one input's METRICS: the summary scalars, MAE@coverage (selective risk
    of a per-sample run), Coverage@Risk, the effective reliability per cost."""
    rows = [(key.label, _cell(m, key)) for key in SUMMARY]
    ci = _ci(m)
    for c, hit in m["mae_at_coverage"].items():
        value = hit["value"] if hit else None
        rows.append((f"{at_coverage(per_sample)}{c}", _fmt(value, ci.get("mae_at_coverage", {}).get(c))))
    for a, car in m["coverage_at_risk"].items():
        rows.append((f"Coverage@Risk {a}", _fmt(car["coverage"], ci.get("coverage_at_risk", {}).get(a))))
    for c, best in m.get("effective_reliability", {}).items():  # docs/metrics-extended.md
        rows.append((f"Phi_c c={c}", _fmt(best["value"], ci.get("effective_reliability", {}).get(c))))
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


def blocks(art: dict[str, Any], artifact_path: str | None) -> list[str | Table]:
    """The summary as lines and tables: the population line; per CSF a table (paired: left,
    right, delta) when there are at most DETAIL_LIMIT of them, else one ranking table; then the
    aliases and the artifact."""
    pop = art["population"]
    per_sample = art["inputs"][0].get("method") is not None
    units, items = ("clusters", "samples") if per_sample else ("participants", "items")
    out: list[str | Table] = [
        f"loss {art['loss']['name']}, estimator {art['estimator']}, "
        f"C = {art['options']['area_coverage']}: {pop['participants_included']} "
        f"{units} included, {pop['participants_failed']} failed, "
        f"{pop['items_total']} {items}"
    ]
    boot = art["options"]["bootstrap_resamples"]
    ci_note = f", 95% CI from {boot} resamples" if boot > 0 else ""
    groups = aliases(art["confidence_variants"])
    if len(groups) <= DETAIL_LIMIT:
        out += [_detail(art, name, ci_note) for name in groups]
    else:
        out.append(_ranking(art, list(groups), ci_note))
    if art.get("rank_stability"):  # docs/metrics-extended.md
        from riskcov.report import rank_tables

        header, rows = rank_tables.rows(art["rank_stability"])
        out.append(Table(rank_tables.title(art["rank_stability"]), [(h, True) for h in header], rows))
    if art.get("groups"):  # evaluate --group (docs/metrics-extended.md)
        from riskcov.report import group_tables

        column = art["groups"]["column"]
        found = group_tables.rows(art["groups"])
        title, header, rows = group_tables.table(found, column, art["options"]["alpha_grid"])
        # the CSF, group and n never shrink; the numbers wrap when the terminal is narrow
        out.append(Table(title, [(h, k < 3) for k, h in enumerate(header)], rows))
    for name, same in groups.items():
        if same:
            out.append(f"{', '.join(same)}: the same numbers as {name} (shown once)")
    if art.get("skipped_variants"):
        out.append("skipped: " + ", ".join(art["skipped_variants"]))
    if artifact_path:
        out.append(f"artifact: {artifact_path}")
    return out


def render(art: dict[str, Any], console: Console, artifact_path: str | None) -> None:
    """Print the summary with rich."""
    from rich.table import Table as RichTable

    for block in blocks(art, artifact_path):
        if isinstance(block, str):
            console.print(block)
            continue
        table = RichTable(title=block.title, title_justify="left")
        for header, no_wrap in block.columns:
            table.add_column(header, no_wrap=no_wrap)
        for row in block.rows:
            table.add_row(*row)
        console.print(table)


# text rich prints as it is: printable ASCII, no markup tag ([a..., [/..., [#..., [@...), no
# escape, and no emoji code (:name: that rich's table knows: secondary:a+b:average is none)
_PLAIN_TEXT = re.compile(r"[ -~]*")
_MARKUP = re.compile(r"\\|\[[A-Za-z#/@]")
_COLONS = re.compile(r":\S*:")
# rich takes stdout for a terminal (styles) when one of these is set, whatever isatty says
_FORCING = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "JUPYTER_LINES")


def _plain_ok(text: str) -> bool:
    if not _PLAIN_TEXT.fullmatch(text) or _MARKUP.search(text):
        return False
    if _COLONS.search(text):  # rich's own emoji replacement (its table, not rich.console)
        from rich._emoji_replace import _emoji_replace

        return _emoji_replace(text) == text
    return True


def plain(art: dict[str, Any], artifact_path: str | None) -> str | None:
    """The summary as rich prints it to a file that is not a terminal (no styles), drawn
    without rich; None when rich would lay anything out otherwise (text that is not plain, a
    line or table wider than the console, a title wider than its table), then rich draws it
    (tests/unit/test_summary_plain.py compares the two).
    """
    lines: list[str] = []
    for block in blocks(art, artifact_path):
        if isinstance(block, str):
            if not _plain_ok(block) or len(block) > WIDTH or block != block.strip():
                return None
            lines.append(block)
            continue
        cells = [[h for h, _ in block.columns], *block.rows]
        texts = [block.title, *(c for row in cells for c in row)]
        if not block.rows or not all(_plain_ok(t) for t in texts):
            return None
        widths = [max(len(row[i]) for row in cells) for i in range(len(block.columns))]
        total = sum(widths) + 3 * len(widths) + 1
        if total > WIDTH or len(block.title) > total or block.title != block.title.strip():
            return None

        def rule(left: str, mid: str, right: str, bar: str, widths: list[int] = widths) -> str:
            return left + mid.join(bar * (w + 2) for w in widths) + right

        def row(edge: str, cells: list[str], widths: list[int] = widths) -> str:
            return edge + edge.join(f" {c.ljust(w)} " for c, w in zip(cells, widths, strict=True)) + edge

        lines += [block.title.ljust(total), rule("┏", "┳", "┓", "━"), row("┃", cells[0])]
        lines.append(rule("┡", "╇", "┩", "━"))
        lines += [row("│", r) for r in block.rows]
        lines.append(rule("└", "┴", "┘", "─"))
    return "".join(f"{line}\n" for line in lines)


def show(art: dict[str, Any], artifact_path: str | None) -> None:
    """Print the summary on stdout: without rich (and its slow import) when stdout is not a
    terminal and `plain` can draw it byte for byte as rich would, else with rich."""
    text = None
    out = sys.stdout
    utf8 = (getattr(out, "encoding", None) or "").lower().replace("-", "") == "utf8"
    terminal = getattr(out, "isatty", lambda: True)() or any(k in os.environ for k in _FORCING)
    if utf8 and sys.platform != "win32" and not terminal:
        text = plain(art, artifact_path)
    if text is None:
        from rich.console import Console

        render(art, Console(width=WIDTH), artifact_path)
        return
    out.write(text)
    out.flush()


def _detail(art: dict[str, Any], name: str, ci_note: str) -> Table:
    entry = art["confidence_variants"][name]
    per_sample = art["inputs"][0].get("method") is not None
    table = Table(f"confidence {name}{ci_note}", [], [])
    table.add_column("metric")
    if not art["comparison"]["enabled"]:
        table.add_column(label(art["inputs"][0]))
        for row in _rows(entry, per_sample):
            table.add_row(*row)
        return table
    left, right = art["inputs"]
    table.add_column(f"left: {label(left)}")
    table.add_column(f"right: {label(right)}")
    table.add_column("delta (right - left)")
    deltas = art["comparison"]["deltas"][name]
    delta_of = {key.label: deltas.get(key.key) for key in SUMMARY}
    delta_of.update(
        {
            f"{at_coverage(per_sample)}{c}": deltas.get(f"mae_at_coverage_{c}")
            for c in entry["input_0"]["mae_at_coverage"]
        }
    )
    boot = art["options"]["bootstrap_resamples"]
    for (text, a), (_, b) in zip(
        _rows(entry["input_0"], per_sample), _rows(entry["input_1"], per_sample), strict=True
    ):
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
    table = Table(title, [], [])
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


def html(art: dict[str, Any]) -> str:
    """The summary's lines and tables as HTML (a notebook cell's display of an evaluation).

    >>> "<table" in html_blocks(["a < b", Table("t", [("metric", False)], [["AURC"]])])
    True
    """
    return html_blocks(blocks(art, None))


def html_blocks(parts: list[str | Table]) -> str:
    """`blocks` as HTML: a line is a paragraph, a table a table with its title as caption."""
    from html import escape

    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(f"<p>{escape(part)}</p>")
            continue
        head = "".join(f"<th>{escape(h)}</th>" for h, _ in part.columns)
        body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in part.rows)
        caption = f'<caption style="text-align:left">{escape(part.title)}</caption>'
        out.append(f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    return '<div class="riskcov-summary">' + "".join(out) + "</div>"
