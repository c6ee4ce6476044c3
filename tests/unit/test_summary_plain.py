"""The console summary drawn without rich (report.summary.plain) is byte for byte what rich
prints to a file that is not a terminal, or None (then rich draws it)."""

from __future__ import annotations

import copy
import io
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from riskcov.report import summary

ALPHAS = ("0.01", "0.05", "0.20")


def _artifact(path: Path) -> dict[str, Any]:
    """A reference artifact of the shared fixtures with what riskcov's own artifact adds and the
    summary reads (options, estimator, Coverage@Risk)."""
    art = json.loads(path.read_text())
    resamples = int(re.search(r"_b(\d+)", path.name).group(1))  # type: ignore[union-attr]
    art["options"] = {"area_coverage": 0.5, "bootstrap_resamples": resamples}
    art["estimator"] = "plateau-trapezoid"
    for entry in art["confidence_variants"].values():
        for m in entry.values() if art["comparison"]["enabled"] else [entry]:
            m["coverage_at_risk"] = {a: {"coverage": m["cmax"] * float(a) * 4} for a in ALPHAS}
            if m["bootstrap"]:
                m["bootstrap"]["ci95"]["coverage_at_risk"] = {a: [0.0, m["cmax"]] for a in ALPHAS}
    return art


def _rich(art: dict[str, Any], artifact_path: str | None) -> str:
    buf = io.StringIO()
    summary.render(art, Console(width=summary.WIDTH, file=buf), artifact_path)
    return buf.getvalue()


@pytest.fixture(scope="module")
def artifacts(shared_dir: Path) -> dict[str, dict[str, Any]]:
    return {p.stem: _artifact(p) for p in sorted((shared_dir / "fixtures" / "expected").glob("*.json"))}


def test_plain_is_rich_for_the_reference_artifacts(artifacts: dict[str, dict[str, Any]]) -> None:
    paths = {"short": "artifacts/w_evaluation_1.json", "none": None, "wide": "/tmp/" + "x" * 150 + ".json"}
    drawn = {}
    for name, art in artifacts.items():
        for label, path in paths.items():
            text = summary.plain(art, path)
            assert text is None or text == _rich(art, path), (name, path)
            drawn[name, label] = text is not None
    # without rich: all but the artifact path wider than the console and the title wider than
    # its table (no CIs: "confidence secondary:verbalized+token_msp:product", which rich wraps)
    wrapped = "public30_few_secondary_product_abs_b0"
    want = {(name, label): label != "wide" and name != wrapped for name in artifacts for label in paths}
    assert drawn == want


TAME = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.+ "
ODD = [chr(c) for c in range(32, 127)] + ["é", "─", "\t", "[bold]", ":smile:", "\\", "[/]", " [a", "::"]


def test_plain_is_rich_or_none_for_odd_names(artifacts: dict[str, dict[str, Any]]) -> None:
    rng = random.Random(12)
    outcomes: dict[str, list[bool]] = {"tame": [], "odd": []}
    for case in range(80):
        kind = "tame" if case % 2 else "odd"
        alphabet = TAME if kind == "tame" else ODD
        art = copy.deepcopy(artifacts[sorted(artifacts)[case % len(artifacts)]])
        for inp in art["inputs"]:
            inp["mode"] = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 90)))
        variants = art["confidence_variants"]
        name = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 60)))
        variants[name] = variants.pop(next(iter(variants)))
        if art["comparison"]["deltas"]:
            art["comparison"]["deltas"][name] = next(iter(art["comparison"]["deltas"].values()))
        text = summary.plain(art, "a.json")
        assert text is None or text == _rich(art, "a.json"), case
        outcomes[kind].append(text is not None)
    assert {k: v.count(True) for k, v in outcomes.items()} == {"tame": 32, "odd": 1}
