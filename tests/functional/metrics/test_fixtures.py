"""Every public fixture case (fixtures/manifest.json) through `riskcov evaluate`, compared with
its reference artifact by the rule of tools/compare_artifact.py, bootstrap included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from metrics_support import FIXTURES, assert_reference, load_cases

from shared_folder import missing

if not (FIXTURES / "manifest.json").is_file():
    missing(FIXTURES / "manifest.json", module=True)

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_fixture_case_reproduces_the_reference(
    case, riskcov, tmp_path: Path, warehouse: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(FIXTURES)
    out = tmp_path / "artifact.json"
    r = riskcov(["evaluate", *case["argv"], "--output", out, "--warehouse", warehouse])
    assert (r.exit_code, r.stderr, r.exception) == (0, "", None)
    ours = json.loads(out.read_text())
    assert_reference(case["reference"], ours)
    # the paths are what the user passed, relative to the fixtures folder
    assert [i["path"] for i in ours["inputs"]] == [
        a for prev, a in zip(case["argv"], case["argv"][1:], strict=False) if prev == "--input"
    ]


def test_manifest_covers_every_reference_file() -> None:
    named = {Path(c["expected"]).name for c in CASES}
    assert named == {p.name for p in (FIXTURES / "expected").glob("*.json")}
