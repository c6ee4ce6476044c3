"""RC curves as plot lines, from an artifact or from stored evaluation rows, for plots and
reports (lines evaluated afresh, with bootstrap bands: riskcov.evaluation.curves)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from riskcov.bootstrap.curve_band import Band


@dataclass
class Line:
    """One RC curve: its working points (plateau order), Cmax and optional bootstrap band."""

    label: str
    coverage: list[float]
    selective_risk: list[float]
    generalized_risk: list[float]
    cmax: float
    band: Band | None = None


def merge_identical(lines: list[Line]) -> list[Line]:
    """Curves with the same points and band drawn once, labelled with every name (llm and
    total_evidence are one formula): a hidden line would still take a legend entry.

    >>> a = Line("llm", [0.5, 1.0], [0.0, 0.5], [0.0, 0.25], 1.0)
    >>> [x.label for x in merge_identical([a, replace(a, label="total_evidence"), replace(a, cmax=0.5)])]
    ['llm = total_evidence', 'llm']
    """
    kept: list[Line] = []
    for line in lines:
        same = next((i for i, k in enumerate(kept) if replace(k, label=line.label) == line), None)
        if same is None:
            kept.append(line)
        else:
            kept[same] = replace(kept[same], label=f"{kept[same].label} = {line.label}")
    return kept


def input_names(inputs: list[dict[str, Any]]) -> list[str]:
    """Short names telling the inputs apart: run ids when they differ, then modes.

    >>> input_names([{"run_id": "r", "mode": "zero_shot"}, {"run_id": "r", "mode": "few_shot"}])
    ['zero_shot', 'few_shot']
    >>> input_names([{"run_id": "a", "mode": None}])
    ['a']
    """
    names = [""] * len(inputs)
    for key in ("run_id", "mode"):
        values = [str(i.get(key)) if i.get(key) is not None else "" for i in inputs]
        if len(set(values)) > 1 or len(inputs) == 1:
            names = [f"{n} {v}".strip() for n, v in zip(names, values, strict=True)]
    return [n or f"input_{k}" for k, n in enumerate(names)]


def _line(label: str, curve: dict[str, list[float]], cmax: float) -> Line:
    return Line(
        label, list(curve["coverage"]), list(curve["selective_risk"]), list(curve["generalized_risk"]), cmax
    )


def lines_from_artifact(art: dict[str, Any]) -> list[Line]:
    """One line per CSF, or per CSF and input when the artifact is paired."""
    paired = art["comparison"]["enabled"]
    names = input_names(art["inputs"])
    lines = []
    for csf, entry in art["confidence_variants"].items():
        if not paired:
            lines.append(_line(csf, entry["curve"], entry["cmax"]))
            continue
        for k, name in enumerate(names):
            m = entry[f"input_{k}"]
            lines.append(_line(f"{csf} · {name}", m["curve"], m["cmax"]))
    return lines


def line_keys(art: dict[str, Any]) -> list[tuple[str, int]]:
    """(csf, input number) of each line of lines_from_artifact, in its order."""
    inputs = range(2) if art["comparison"]["enabled"] else range(1)
    return [(csf, k) for csf in art["confidence_variants"] for k in inputs]
