"""The Python API (riskcov.evaluate, Evaluation, Warehouse) against the CLI on the same data, for
every input kind: pandas, polars, pyarrow, a mapping of columns, a path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import riskcov
from riskcov.errors import InputError, UsageError

N = 60


def _columns() -> dict[str, Any]:
    """60 samples in 12 clusters, two score columns with ties, 0/1 correctness."""
    rng = np.random.default_rng(5)
    return {
        "sample_id": np.arange(1, N + 1),
        "cluster": rng.integers(0, 12, N),
        "confidence": np.round(rng.random(N), 1),  # ties: plateaus
        "confidence_msp": rng.random(N),
        "correct": rng.random(N) < 0.7,
    }


def _write_csv(path: Path, cols: dict[str, Any], names: dict[str, str] | None = None) -> Path:
    names = names or {}
    header = [names.get(k, k) for k in cols]
    lines = [",".join(header)]
    for i in range(N):
        cells = []
        for v in (cols[k][i] for k in cols):
            cells.append(("true" if v else "false") if isinstance(v, np.bool_) else repr(v.item()))
        lines.append(",".join(cells))
    path.write_text("\n".join(lines) + "\n")
    return path


def _comparable(art: dict[str, Any]) -> dict[str, Any]:
    """The artifact without what names where the data came from (a file, or memory)."""
    out = {k: v for k, v in art.items() if k != "created_at"}
    out["inputs"] = [
        {k: v for k, v in i.items() if k not in ("path", "run_id", "sha256", "experiment_id")}
        for i in art["inputs"]
    ]
    return out


def _cli_artifact(run_cli: Any, tmp_path: Path, csv: Path, *flags: str) -> dict[str, Any]:
    out = tmp_path / "cli.json"
    args = [
        "evaluate",
        "--input",
        str(csv),
        "--bootstrap-resamples",
        "200",
        "--seed",
        "7",
        *(flags if "--confidence" in flags else ("--confidence", "all", *flags)),
        "--output",
        str(out),
        "--warehouse",
        str(tmp_path / "cli.duckdb"),
    ]
    done = run_cli(args)
    assert done.exit_code == 0, done.stderr
    art: dict[str, Any] = json.loads(out.read_text())
    return art


def _as(kind: str, cols: dict[str, Any]) -> Any:
    if kind == "mapping":
        return {k: list(v) if k == "correct" else v for k, v in cols.items() if k != "sample_id"}
    if kind == "pandas":
        import pandas as pd

        return pd.DataFrame(cols)
    if kind == "polars":
        import polars as pl

        return pl.DataFrame(cols)
    import pyarrow as pa

    return pa.table(cols)


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow", "mapping", "path"])
def test_api_gives_the_cli_artifact(kind: str, run_cli: Any, tmp_path: Path) -> None:
    """The mapping leaves sample_id out: its default, the row number, is the file's 1..N."""
    cols = _columns()
    csv = _write_csv(tmp_path / "data.csv", cols)  # stem `data`: the method in-memory data gets
    expected = _cli_artifact(run_cli, tmp_path, csv)
    data = csv if kind == "path" else _as(kind, cols)
    got = riskcov.evaluate(data, resamples=200, seed=7)
    assert _comparable(got.artifact) == _comparable(expected)
    assert set(got.artifact["confidence_variants"]) == {"confidence", "msp"}
    assert got.artifact["options"]["bootstrap_resamples"] == 200


def test_role_columns_by_other_names(run_cli: Any, tmp_path: Path) -> None:
    import pandas as pd

    cols = _columns()
    csv = _write_csv(tmp_path / "data.csv", cols)
    expected = _cli_artifact(run_cli, tmp_path, csv, "--confidence", "msp")
    frame = pd.DataFrame(cols).rename(columns={"correct": "is_right", "cluster": "patient"})
    got = riskcov.evaluate(
        frame, confidence="msp", correct="is_right", cluster="patient", resamples=200, seed=7
    )
    assert _comparable(got.artifact) == _comparable(expected)
    with pytest.raises(UsageError, match="data: no column right"):
        riskcov.evaluate(frame, correct="right", resamples=0)


def test_in_memory_data_is_not_imported(tmp_path: Path) -> None:
    """A mapping of numpy arrays and lists evaluates without pandas, polars or pyarrow."""
    code = (
        "import sys, riskcov\n"
        "ev = riskcov.evaluate({'confidence': [0.9, 0.8, 0.3], 'correct': [True, False, False]},"
        " resamples=20)\n"
        "print(ev.value('aurc_full'), [m for m in ('pandas', 'polars', 'pyarrow') if m in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    aurc, imported = done.stdout.split(" ", 1)
    # losses 0, 1, 1: risks 0, 1/2, 2/3 at coverage 1/3, 2/3, 1; (1/4 + 7/12) / 3 = 5/18
    assert (float(aurc), imported) == (5 / 18, "[]\n")


def test_tables_hold_the_artifact_numbers() -> None:
    ev = riskcov.evaluate(_as("mapping", _columns()), resamples=50, seed=3)
    art = ev.artifact
    table = ev.to_arrow()
    assert table.column_names == ["input", "csf", "metric", "value", "ci_low", "ci_high"]
    rows = {(r["csf"], r["metric"]): r for r in table.to_pylist()}
    for csf in ("confidence", "msp"):
        m = art["confidence_variants"][csf]
        got = rows[(csf, "aurc_full")]
        assert (got["value"], [got["ci_low"], got["ci_high"]]) == (
            m["aurc_full"],
            m["bootstrap"]["ci95"]["aurc_full"],
        )
        assert rows[(csf, "mae_at_coverage_0.50")]["value"] == m["mae_at_coverage"]["0.50"]["value"]
    frame = ev.to_pandas()
    assert len(frame) == table.num_rows and list(frame.columns) == table.column_names
    assert ev.to_polars().to_dicts() == table.to_pylist()


def test_notebook_display_is_the_summary() -> None:
    ev = riskcov.evaluate(_as("mapping", _columns()), confidence="msp", resamples=50, seed=3)
    page = ev._repr_html_()
    m = ev.artifact["confidence_variants"]["msp"]
    lo, hi = m["bootstrap"]["ci95"]["aurc_full"]
    assert f"<tr><td>AURC</td><td>{m['aurc_full']:.4f} [{lo:.4f}, {hi:.4f}]</td></tr>" in page
    assert page.count("<table>") == 1 and "60 clusters" not in page and "12 clusters included" in page


def test_curve_and_plot(tmp_path: Path) -> None:
    cols = {"confidence": [0.9, 0.8, 0.3], "correct": [True, False, False]}
    ev = riskcov.evaluate(cols, resamples=0)
    curve = ev.curve(points=4)
    # coverage 0, 1/3, 2/3, 1 of Cmax 1; selective risk 0 (the first point's), 0, 1/2, 2/3
    assert list(curve["coverage"]) == pytest.approx([0, 1 / 3, 2 / 3, 1])
    assert list(curve["selective_risk"]) == pytest.approx([0, 0, 1 / 2, 2 / 3])
    fig = ev.plot(tmp_path / "rc.svg")
    assert (tmp_path / "rc.svg").read_text().startswith("<?xml")
    assert [ax.get_xlabel() for ax in fig.axes] == ["coverage", "coverage"]


def test_bad_data_is_a_typed_error_naming_the_row() -> None:
    with pytest.raises(InputError, match=r"^data: row 2, column confidence: value is null"):
        riskcov.evaluate({"confidence": [0.5, None], "correct": [True, False]}, resamples=0)
    with pytest.raises(InputError, match=r"data: the columns differ in length \(confidence 2, correct 1\)"):
        riskcov.evaluate({"confidence": [0.5, 0.4], "correct": [True]}, resamples=0)
    with pytest.raises(UsageError, match="unknown option coverage; "):
        riskcov.evaluate({"confidence": [0.5], "correct": [True]}, coverage=0.5)
    with pytest.raises(UsageError, match="data: a int is not a DataFrame"):
        riskcov.evaluate(3)


def test_warehouse_stores_like_the_cli(tmp_path: Path) -> None:
    cols = _as("mapping", _columns())
    path = tmp_path / "w.duckdb"
    with riskcov.Warehouse(path) as wh:
        run = wh.ingest(cols, run_id="preds", split="cal")
        assert wh.ingest(cols) == run  # the same data again: unchanged
        ev = wh.evaluate(run, confidence="confidence", resamples=30, coverage_grid=[0.25, 0.5])
        stored = wh.sql(
            "SELECT input, csf, metric, value, ci_low, ci_high FROM evaluation_metrics "
            "WHERE evaluation_id = ? ORDER BY ALL",
            [ev.evaluation_id],
        ).fetchall()
        assert stored == sorted(ev.rows(), key=lambda r: tuple("" if x is None else x for x in r))
        assert [r["run_id"] for r in wh.runs()] == ["preds"]
        assert ev.artifact["inputs"][0]["split"] == "cal"
    assert ev.path is not None and json.loads(ev.path.read_text())["inputs"][0]["run_id"] == "preds"
    # outside `with`: each call opens the file
    again = riskcov.Warehouse(path).evaluate("preds", resamples=0)
    assert again.artifact["confidence_variants"]["confidence"]["aurc_full"] == ev.value("aurc_full")
    with pytest.raises(InputError, match="run_id preds is already ingested from <data> with other content"):
        riskcov.Warehouse(path).ingest({"confidence": [0.5], "correct": [True]}, run_id="preds")


def test_the_module_and_the_function_share_the_name() -> None:
    """`riskcov.evaluate` is riskcov/evaluation/run.py once imported: it stays callable, and the
    module's names stay reachable (`from riskcov import evaluate; evaluate.run`)."""
    import riskcov.evaluation.run as module

    assert module.run is not None and callable(riskcov.evaluate)
    ev = riskcov.evaluate({"confidence": [0.2, 0.1], "correct": [1, 0]}, resamples=0)
    assert ev.value("aurc_full") == 1 / 8  # risks 0, 1/2 at coverage 1/2, 1: (1/2) (0 + 1/2) / 2


def test_the_docs_page_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Any) -> None:
    """docs/python.md's blocks in page order, in one folder: the quick start, the keywords on a
    frame with those columns, the Warehouse block (warehouse/riskcov.duckdb there), then the
    CLI's calibrate-on-cal and the Python one on a preds.csv of cal and test splits."""
    import pandas as pd
    from docs_support import blocks

    monkeypatch.chdir(tmp_path)
    python = blocks("docs/python.md", "python")
    shell = blocks("docs/python.md", "bash")
    assert (len(python), len(shell)) == (4, 2)
    scope: dict[str, Any] = {}
    exec(python[0], scope)
    # losses 0, 0, 1, 0, 1, 1: risks 0, 0, 1/3, 1/4, 2/5, 1/2 at coverage 1/6 ... 1, trapezoids
    assert scope["ev"].value("aurc_full") == pytest.approx((1 / 6 + 7 / 24 + 13 / 40 + 9 / 20) / 6, rel=1e-15)
    frame = pd.DataFrame(_columns()).drop(columns="sample_id")
    scope["df"] = frame.rename(columns={"correct": "is_right", "cluster": "patient_id"})
    exec(f"ev = {python[1].strip()}", scope)
    assert list(scope["ev"].artifact["confidence_variants"]) == ["msp"]
    scope["df"] = frame
    exec(python[2], scope)
    assert scope["ev"].artifact["inputs"][0]["run_id"] == "resnet"
    rng = np.random.default_rng(2)
    draws = [(s, i, rng.random(), rng.random(), rng.random()) for s in ("cal", "test") for i in range(50)]
    rows = [f"{s}{i},{c!r},{m!r},{int(u < c)},{s}" for s, i, c, m, u in draws]
    Path("preds.csv").write_text(
        "sample_id,confidence,confidence_msp,correct,split\n" + "\n".join(rows) + "\n"
    )
    for line in shell[0].splitlines():
        done = run_cli(line.split("#")[0].split()[1:])
        assert done.exit_code == 0, done.stderr
    with riskcov.Warehouse("warehouse/riskcov.duckdb") as wh:
        scope["wh"], scope["run"] = wh, "preds"
        exec(python[3], scope)
    assert scope["cal"]["features"] == ["confidence", "msp"]
    assert list(scope["ev"].artifact["confidence_variants"]) == ["calibrated"]
    # the user CSFs' block: quoted expressions as the shell reads them
    import shlex

    outputs = []
    for line in shell[1].splitlines():
        done = run_cli(shlex.split(line, comments=True)[1:])
        assert done.exit_code == 0, done.stderr
        outputs.append(done.stdout)
    assert [row.split("\t")[3] for row in outputs[2].splitlines()] == ["per-sample runs"] * 2


def _best_phi(confidence: Any, correct: Any, cost: float) -> float:
    """Φ_c by its definition (docs/metrics-extended.md): per distinct confidence (ties enter
    together) (accepted - (1 + c) · wrong accepted) / N, the best of them and of accepting nothing."""
    best = 0.0
    for t in sorted(set(confidence.tolist()), reverse=True):
        accepted = confidence >= t
        wrong = int((accepted & ~correct).sum())
        best = max(best, (int(accepted.sum()) - (1 + cost) * wrong) / len(confidence))
    return best


def test_group_and_costs_as_the_cli(run_cli: Any, tmp_path: Path) -> None:
    """group= and costs= are --group and --costs: the same artifact as the CLI's."""
    import pandas as pd

    cols = {**_columns(), "site": np.random.default_rng(9).integers(0, 3, N)}
    csv = _write_csv(tmp_path / "data.csv", cols)
    flags = ("--confidence", "confidence", "--group", "site", "--costs", "0,1.5")
    expected = _cli_artifact(run_cli, tmp_path, csv, *flags)
    frame = pd.DataFrame(cols)
    keywords = {"confidence": "confidence", "group": "site", "costs": [0, 1.5]}
    got = riskcov.evaluate(frame, resamples=200, seed=7, **keywords)
    assert _comparable(got.artifact) == _comparable(expected)
    assert got.value("effective_reliability_1.50") == pytest.approx(
        _best_phi(cols["confidence"], cols["correct"], 1.5), abs=1e-15
    )
    sizes = {(g, v) for _, g, m, v, _, _ in got.group_rows() if m == "n"}
    assert sizes == {(str(s), float((cols["site"] == s).sum())) for s in (0, 1, 2)}
    table = got.to_pandas(groups=True)
    assert list(table.columns) == ["csf", "group", "metric", "value", "ci_low", "ci_high"]
    assert len(table) == len(got.group_rows()) and got.to_pandas().shape[1] == 6


def test_costs_and_spark_settings_are_checked_as_flags() -> None:
    data = _as("mapping", _columns())
    with pytest.raises(UsageError, match=r"^costs='x': give a number or a list of numbers$"):
        riskcov.evaluate(data, resamples=0, costs="x")
    with pytest.raises(UsageError, match=r"^--spark-conf applies to --engine spark$"):
        riskcov.evaluate(data, resamples=0, spark_conf={"spark.driver.memory": "2g"})
    # a list for the one column: said so, not "['site']: not a column ...; choose one of ..., site"
    with pytest.raises(UsageError, match=r"^group=\['site'\]: give one column name$"):
        riskcov.evaluate({**data, "site": [1] * len(data["confidence"])}, resamples=0, group=["site"])
    cols = _columns()
    phi = riskcov.evaluate(data, resamples=0, costs=2).value("effective_reliability_2.00")
    assert phi == pytest.approx(_best_phi(cols["confidence"], cols["correct"], 2.0), abs=1e-15)


@pytest.mark.parametrize(
    ("keyword", "message"),
    [
        # each of these was taken: True as 1 resample, seed 1, AURC@1.0 (stored as `true`) or
        # cost 1.0; a float or a string failed with a TypeError from deep inside
        ({"resamples": True}, "resamples=True: give a whole number"),
        ({"resamples": 2.5}, "resamples=2.5: give a whole number"),
        ({"resamples": "10"}, "resamples='10': give a whole number"),
        ({"seed": True}, "seed=True: give a whole number"),
        ({"area_coverage": True}, "area_coverage=True: give a number"),
        ({"area_coverage": "0.5"}, "area_coverage='0.5': give a number"),
        ({"curve_points": 2.5}, "curve_points=2.5: give a whole number"),
        ({"costs": True}, "costs=True: give a number or a list of numbers"),
        ({"coverage_grid": [0.5, False]}, "coverage_grid=[0.5, False]: give a number or a list of numbers"),
        ({"costs": []}, "--costs needs at least one value"),
        ({"spark_master": "local[2]"}, "--spark-master applies to --engine spark"),
        ({"coverage_grid": [2.0]}, "--coverage-grid value 2.0 is not in (0, 1]"),
    ],
)
def test_a_refused_keyword_stores_nothing(tmp_path, keyword, message) -> None:
    """riskcov.evaluate checks its keywords before it stores the data: a refused option left the
    ingested run in the warehouse file."""
    path = tmp_path / "w.duckdb"
    with pytest.raises(UsageError) as raised:
        riskcov.evaluate(_as("mapping", _columns()), warehouse=path, **{"resamples": 0, **keyword})
    assert str(raised.value) == message
    assert not path.exists()


def test_numpy_numbers_are_numbers() -> None:
    ev = riskcov.evaluate(
        {"confidence": [0.9, 0.8, 0.3, 0.2], "correct": [1, 1, 0, 1]},
        resamples=np.int64(20),
        seed=np.uint32(7),
        area_coverage=np.float32(0.5),
    )
    options = ev.artifact["options"]
    assert (options["bootstrap_resamples"], options["seed"], options["area_coverage"]) == (20, 7, 0.5)
    assert type(options["bootstrap_resamples"]) is int and type(options["area_coverage"]) is float


def test_every_keyword_evaluate_takes_is_documented():
    """riskcov.evaluate's docstring and docs/python.md name every metric option and selector
    it accepts (riskcov.api.options)."""
    from riskcov.api import options

    docs = (Path(__file__).resolve().parents[2] / "docs" / "python.md").read_text()
    for key in (*options._METRIC_OPTIONS, *options._SELECTORS):
        assert key in (riskcov.evaluate.__doc__ or ""), key
        assert f"`{key}`" in docs, key
