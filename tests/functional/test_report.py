"""`riskcov report`: the HTML page's tables hold exactly the artifact's numbers (parsed back with
html.parser), from an artifact and from the stored rows alike; every user string is escaped;
nothing is fetched; and a headless Chromium renders it (marked `browser`)."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from riskcov.report import svg
from riskcov.report.store import metric_rows


class Page(HTMLParser):
    """Metric, delta and population cells, polylines and the page's text."""

    def __init__(self) -> None:
        super().__init__()
        self.csf = ""
        self.metric = ""
        self.delta = False
        self.cells: list[dict[str, str | None]] = []
        self.rows: list[tuple[Any, ...]] = []
        self.population: dict[str, str] = {}
        self.polylines: list[str] = []
        self.text: list[str] = []
        self._table = ""
        self._th: str | None = None
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self._table = a.get("class") or ""
            self.csf = a.get("data-csf") or ""
        elif tag == "tr":
            self.metric, self.cells = a.get("data-metric") or "", []
            self.delta = "data-csf" in a
            if self.delta:
                self.csf = a["data-csf"] or ""
        elif tag == "td" and self.metric:
            self.cells.append(a)
        elif tag == "polyline":
            self.polylines.append(a["points"] or "")
        self._in = tag

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr" and self.metric:
            values = [_num(c.get("data-value")) for c in self.cells if "data-value" in c]
            bounds = [
                (_num(c.get("data-low")), _num(c.get("data-high"))) for c in self.cells if "data-low" in c
            ]
            labels = ["delta"] if self.delta else [f"input_{k}" for k in range(len(values))]
            for label, v, (lo, hi) in zip(labels, values, bounds, strict=True):
                self.rows.append((label, self.csf, self.metric, v, lo, hi))
            self.metric = ""
        self._in = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._table == "population":
            if self._in == "th":
                self._th = data
            elif self._in == "td" and self._th is not None:
                self.population[self._th] = data


def _num(text: str | None) -> float | None:
    return None if text in (None, "null") else float(text)


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def by_key(rows):
    return sorted(rows, key=lambda r: (r[0], r[1], r[2]))


def test_tables_hold_the_artifacts_numbers(paired_evaluation, tmp_path, run_cli):
    _, artifact, art = paired_evaluation
    out = tmp_path / "report.html"
    result = run_cli(["report", "--artifact", artifact, "--output", out])
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"wrote {out}\n", "")
    page = parse(out)
    expected = metric_rows(art)
    # per input: 13 scalars (3 of them docs/metrics.md), 3 interpretation, 9 MAE@coverage
    # + 9 achieved coverages, 6 Coverage@Risk, 5 effective reliabilities with their 5
    # thresholds and the oracle-gap area; per CSF 14 deltas (5 scalars, 9 MAE@coverage); the
    # rank shares of the 4 contestants (input x CSF, docs/metrics-extended.md) at 4 ranks
    assert len(expected) == 2 * 2 * 51 + 2 * 14 + 4 * 4
    assert by_key(page.rows) == by_key(expected)
    assert page.population == {k: str(v) for k, v in art["population"].items()}
    assert page.population["participants_included"] == "37"


def test_curves_are_the_artifacts_points(paired_evaluation, tmp_path, run_cli):
    _, artifact, art = paired_evaluation
    out = tmp_path / "report.html"
    assert run_cli(["report", "--artifact", artifact, "--output", out]).exit_code == 0
    page = parse(out)
    # two panels x two lines: llm and total_evidence are one formula, drawn once per input
    assert art["confidence_variants"]["llm"] == art["confidence_variants"]["total_evidence"]
    assert len(page.polylines) == 4
    w = svg.WIDTH - svg.LEFT - svg.RIGHT
    curves = [art["confidence_variants"]["llm"][f"input_{k}"]["curve"] for k in (0, 1)]
    for points, curve in zip(page.polylines[:2], curves, strict=True):
        xs = [float(p.split(",")[0]) for p in points.split()]
        assert [(x - svg.LEFT) / w for x in xs] == pytest.approx(curve["coverage"], abs=0.01 / w)


def test_stored_evaluation_gives_the_same_tables(paired_evaluation, tmp_path, run_cli):
    warehouse, artifact, _ = paired_evaluation
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    assert run_cli(["report", "--artifact", artifact, "--output", a]).exit_code == 0
    result = run_cli(["report", "--evaluation", "1", "--warehouse", warehouse, "--output", b])
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"wrote {b}\n", "")
    pa, pb = parse(a), parse(b)
    assert pb.rows == pa.rows
    assert pb.polylines == pa.polylines
    assert pb.population == {}
    assert "evaluation 1: the warehouse does not store the population" in "".join(pb.text)


def test_user_strings_are_escaped(paired_evaluation, tmp_path, run_cli):
    _, artifact, _ = paired_evaluation
    art = json.loads(artifact.read_text())
    evil = '<script>alert("x")</script> & <b>'
    art["inputs"][0]["path"] = evil
    art["inputs"][0]["mode"] = evil
    art["confidence_variants"][evil] = art["confidence_variants"].pop("llm")
    art["comparison"]["deltas"][evil] = art["comparison"]["deltas"].pop("llm")
    ranked = art["rank_stability"]  # its contestants input_<k>:llm
    for k in (0, 1):
        ranked["ranks"][f"input_{k}:{evil}"] = ranked["ranks"].pop(f"input_{k}:llm")
        ranked["contestants"][f"input_{k}:{evil}"] = {"input": f"input_{k}", "csf": evil}
        del ranked["contestants"][f"input_{k}:llm"]
    src, out = tmp_path / "evil.json", tmp_path / "evil.html"
    src.write_text(json.dumps(art))
    assert run_cli(["report", "--artifact", src, "--output", out]).exit_code == 0
    html = out.read_text(encoding="utf-8")
    assert "<script" not in html and "<b>" not in html
    page = parse(out)
    assert evil in page.text  # shown as text, exactly
    assert {r[1] for r in page.rows} == {evil, "total_evidence"}


def test_page_is_self_contained(paired_evaluation, tmp_path, run_cli):
    _, artifact, _ = paired_evaluation
    out = tmp_path / "report.html"
    assert run_cli(["report", "--artifact", artifact, "--output", out]).exit_code == 0
    html = out.read_text(encoding="utf-8")
    for fetches in ("<script", "<link", "src=", "href=", "url(", "@import", "<img", "<iframe"):
        assert fetches not in html
    assert html.count("<svg") == 3 and html.count("<style>") == 1  # two curve panels, the ranks


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        ([], 2, "give one of --evaluation ID or --artifact A.json"),
        (
            ["--evaluation", "1", "--artifact", "a.json"],
            2,
            "give one of --evaluation ID or --artifact A.json",
        ),
        (["--evaluation", "99"], 1, "no evaluation 99 in the warehouse (see the evaluations table)"),
    ],
)
def test_errors(args, code, message, paired_evaluation, tmp_path, run_cli):
    warehouse = paired_evaluation[0]
    result = run_cli(["report", *args, "--warehouse", warehouse, "--output", tmp_path / "r.html"])
    assert (result.exit_code, result.stdout, result.stderr) == (code, "", f"error: {message}\n")
    assert not (tmp_path / "r.html").exists()


def test_not_json_is_exit_1(tmp_path, run_cli):
    bad = tmp_path / "a.json"
    bad.write_text("{")
    result = run_cli(["report", "--artifact", bad, "--output", tmp_path / "r.html"])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {bad}: not a riskcov artifact (invalid JSON: ")


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
# no network: every host name fails to resolve, so a page that fetched anything would show it
HEADLESS = ["--headless", "--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP * ~NOTFOUND"]


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM
    return subprocess.run(
        [CHROMIUM, *HEADLESS, "--enable-logging=stderr", "--v=0", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_chromium_renders_the_page(paired_evaluation, tmp_path, run_cli):
    _, artifact, art = paired_evaluation
    out = tmp_path / "report.html"
    assert run_cli(["report", "--artifact", artifact, "--output", out]).exit_code == 0
    dom = chromium("--dump-dom", out.as_uri())
    assert not [line for line in dom.stderr.splitlines() if ":CONSOLE" in line]
    assert dom.stdout.count('<table class="metrics"') == 2
    assert dom.stdout.count('<table class="deltas"') == 1
    assert dom.stdout.count("<svg") == 3 and dom.stdout.count('<polyline class="curve"') == 4
    aurc = art["confidence_variants"]["llm"]["input_0"]["aurc_full"]
    assert f'data-value="{aurc!r}"' in dom.stdout
    # a screenshot of the page has the window's size and is not blank: it compresses far worse
    # than a blank page of the same size
    shot, blank = tmp_path / "shot.png", tmp_path / "blank.png"
    (tmp_path / "blank.html").write_text("<!DOCTYPE html><html><body></body></html>")
    chromium("--window-size=1200,900", f"--screenshot={shot}", out.as_uri())
    chromium("--window-size=1200,900", f"--screenshot={blank}", (tmp_path / "blank.html").as_uri())
    assert png_size(shot) == png_size(blank) == (1200, 900)
    assert shot.stat().st_size > 5 * blank.stat().st_size


def test_single_input_report(tmp_path, run_cli):
    from riskcov.evaluation.prepared_warehouse import open_warehouse
    from riskcov.evaluation.run import Options, evaluate_and_store

    example = Path(__file__).resolve().parents[2] / "examples" / "example_run.json"
    warehouse, artifact, out = tmp_path / "w.duckdb", tmp_path / "single.json", tmp_path / "single.html"
    opts = Options(inputs=[str(example)], modes=["few_shot"], confidence="llm", bootstrap_resamples=0)
    with open_warehouse(warehouse) as con:
        evaluate_and_store(con, opts, artifact, warehouse)
    art = json.loads(artifact.read_text())
    assert run_cli(["report", "--artifact", artifact, "--output", out]).exit_code == 0
    page = parse(out)
    assert by_key(page.rows) == by_key(metric_rows(art))
    assert {r[0] for r in page.rows} == {"input_0"}
    assert all(r[4] is None and r[5] is None for r in page.rows)  # no resamples: no CI
    text = "".join(page.text)
    assert "A single input: no paired comparison." in text
    assert f"llm (Cmax {art['confidence_variants']['llm']['cmax']:.4f})" in text
    assert len(page.polylines) == 2


def test_a_per_sample_report_speaks_of_samples_and_selective_risk(tmp_path, run_cli):
    """The artifact keys stay (data-metric), the page shows a per-sample run's words."""
    wh, art, page = tmp_path / "w.duckdb", tmp_path / "a.json", tmp_path / "r.html"
    (tmp_path / "p.csv").write_text(
        "sample_id,confidence,correct\n" + "".join(f"{i},0.{i},{i % 2}\n" for i in range(1, 10))
    )
    evaluated = run_cli(
        [
            "evaluate",
            "--input",
            tmp_path / "p.csv",
            "--bootstrap-resamples",
            "0",
            "--output",
            art,
            "--warehouse",
            wh,
        ]
    )
    assert evaluated.exit_code == 0
    assert run_cli(["report", "--artifact", art, "--output", page]).exit_code == 0
    text = page.read_text()
    assert '<tr data-metric="mae_at_coverage_0.50"><th>selective_risk_at_coverage_0.50</th>' in text
    assert "<th>clusters_included</th><td>9</td>" in text and "<th>samples_total</th><td>9</td>" in text
    assert ">mae_at_coverage" not in text and "participants_" not in text
