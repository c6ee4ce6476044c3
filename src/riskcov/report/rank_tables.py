"""How the console and the HTML report show an artifact's rank_stability block
(docs/metrics-extended.md): CSFs in order of their mean rank, the shares of the first ranks,
and each CSF against the next one in that order."""

from __future__ import annotations

from html import escape
from typing import Any

SHOWN_RANKS = 5  # the console shows P(rank 1..5); the artifact holds every rank


def ordered(block: dict[str, Any]) -> list[tuple[str, float]]:
    """(CSF, mean rank) by mean rank, then name.

    >>> ordered({"ranks": {"a": [0.25, 0.75], "b": [0.75, 0.25]}})
    [('b', 1.25), ('a', 1.75)]
    """
    means = {
        name: sum(k * p for k, p in enumerate(shares, start=1)) for name, shares in block["ranks"].items()
    }
    return sorted(means.items(), key=lambda item: (item[1], item[0]))


def pair_of(block: dict[str, Any], a: str, b: str) -> tuple[float, float] | None:
    """(share of replicates where a beats b, Holm-adjusted p) of a pair, either way round.

    >>> pair_of({"pairs": [{"a": "x", "b": "y", "a_better": 0.5, "b_better": 0.25, "p_holm": 1.0}]}, "y", "x")
    (0.25, 1.0)
    """
    for pair in block["pairs"]:
        if (pair["a"], pair["b"]) == (a, b):
            return pair["a_better"], pair["p_holm"]
        if (pair["a"], pair["b"]) == (b, a):
            return pair["b_better"], pair["p_holm"]
    return None


def rows(block: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The console table's header and rows."""
    order = ordered(block)
    shown = min(SHOWN_RANKS, len(order))
    header = ["confidence", "mean rank", *(f"P(rank {k})" for k in range(1, shown + 1))]
    header += ["beats next", "Holm p"]
    out = []
    for n, (name, mean) in enumerate(order):
        shares = block["ranks"][name]
        cells = [name, f"{mean:.2f}", *(f"{p:.3f}" for p in shares[:shown])]
        nxt = pair_of(block, name, order[n + 1][0]) if n + 1 < len(order) else None
        cells += [f"{nxt[0]:.3f}", f"{nxt[1]:.3g}"] if nxt else ["", ""]
        out.append(cells)
    return header, out


def title(block: dict[str, Any]) -> str:
    return f"rank stability of {block['metric']}, {block['n_replicates']} replicates (rank 1 = lowest)"


def shares_from_rows(rows: list[tuple[Any, ...]]) -> dict[str, list[float]]:
    """{contestant: [P(rank 1), ...]} from the stored rows rank_share_<k> (the report reads
    rows, from an artifact or a stored evaluation alike): a CSF's name when one input has them,
    else `input_<k>:<csf>` as in the artifact.

    >>> shares_from_rows([("input_0", "a", "rank_share_2", 0.5), ("input_0", "a", "rank_share_1", 0.5)])
    {'a': [0.5, 0.5]}
    >>> shares_from_rows([("input_0", "a", "rank_share_1", 1.0), ("input_1", "a", "rank_share_1", 1.0)])
    {'input_0:a': [1.0], 'input_1:a': [1.0]}
    """
    mine = [r for r in rows if str(r[2]).startswith("rank_share_") and r[3] is not None]
    paired = len({r[0] for r in mine}) > 1
    found: dict[str, dict[int, float]] = {}
    for r in mine:
        name = f"{r[0]}:{r[1]}" if paired else str(r[1])
        found.setdefault(name, {})[int(str(r[2]).removeprefix("rank_share_"))] = float(r[3])
    return {name: [by_rank[k] for k in sorted(by_rank)] for name, by_rank in found.items()}


def bars(shares: dict[str, list[float]]) -> str:
    """An <svg> of one horizontal bar per CSF (by mean rank), split into its rank shares,
    rank 1 darkest; empty when there is nothing to draw."""
    if not shares:
        return ""
    order = ordered({"ranks": shares})
    m = max(len(v) for v in shares.values())
    left, width, row = 180, 420, 20
    height = 30 + row * len(order) + 24
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 20}" height="{height}" '
        'role="img" aria-label="rank stability" class="ranks">',
        '<text x="10" y="16" class="title">rank distribution over the bootstrap replicates</text>',
    ]
    for n, (name, mean) in enumerate(order):
        y, x = 26 + n * row, float(left)
        parts.append(f'<text x="{left - 6}" y="{y + 13}" text-anchor="end">{escape(name)}</text>')
        for k, p in enumerate(shares[name], start=1):
            shade = round(40 + 180 * (k - 1) / max(m - 1, 1))
            parts.append(
                f'<rect x="{x:.2f}" y="{y}" width="{p * width:.2f}" height="{row - 4}" '
                f'fill="rgb({shade},{shade},{min(255, shade + 60)})" data-rank="{k}" data-share="{p!r}">'
                f"<title>{escape(name)}: P(rank {k}) = {p:.3f} (mean rank {mean:.2f})</title></rect>"
            )
            x += p * width
    parts.append(
        f'<text x="{left}" y="{height - 6}">0</text>'
        f'<text x="{left + width}" y="{height - 6}" text-anchor="end">1 (share of replicates; '
        "ties share the better rank, so a bar may pass 1)</text></svg>"
    )
    return "\n".join(parts)
