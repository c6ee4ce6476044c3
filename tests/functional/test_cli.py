"""The CLI surface: lock message, `runs --json`, storage version, the installed entry point."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from riskcov.warehouse.files import printable

RISKCOV = Path(sys.executable).parent / "riskcov"
HOLD_OPEN = (
    "import sys, time, duckdb\n"
    "con = duckdb.connect(sys.argv[1])\n"
    "print('ready', flush=True)\n"
    "time.sleep(120)\n"
)


def worked_path(shared_dir: Path) -> Path:
    return shared_dir / "fixtures" / "runs" / "worked_example.json"


@pytest.fixture
def held_open(warehouse_path):
    """Another process holding the warehouse file open for writing."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD_OPEN, str(warehouse_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        yield proc
    finally:
        proc.kill()
        proc.wait()


def _holder(proc: subprocess.Popen[str]) -> str:
    cmd = Path(f"/proc/{proc.pid}/cmdline").read_bytes().replace(b"\0", b" ").strip().decode()
    return f"process {proc.pid} ({printable(cmd[:120])})"


def test_locked_warehouse_gives_one_line_and_exit_3(warehouse_path, held_open, run_cli):
    result = run_cli(["runs", "--warehouse", warehouse_path])
    assert (result.exit_code, result.stdout) == (3, "")
    assert result.stderr == (
        f"error: warehouse {warehouse_path} is being written by {_holder(held_open)}; try again when "
        "it has finished\n"
    )


def test_locked_warehouse_refuses_ingest_too(shared_dir, warehouse_path, held_open, run_cli):
    result = run_cli(["ingest", worked_path(shared_dir), "--warehouse", warehouse_path])
    assert result.exit_code == 3
    assert result.stderr == (
        f"error: warehouse {warehouse_path} is locked by {_holder(held_open)}; wait for it or stop it. "
        "Commands that only read (runs, history, export, doctor) share the warehouse; BI tools belong on the "
        "published snapshot (riskcov publish), not on the warehouse\n"
    )


def test_runs_json_structure_for_the_worked_example(shared_dir, warehouse_path, run_cli):
    path = worked_path(shared_dir)
    assert run_cli(["ingest", path, "--warehouse", warehouse_path]).exit_code == 0
    result = run_cli(["runs", "--json", "--warehouse", warehouse_path])
    assert (result.exit_code, result.stderr) == (0, "")
    listing = json.loads(result.stdout)
    ingested_at = listing[0].pop("ingested_at")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?", ingested_at)
    assert listing == [
        {
            "run_id": "worked01",
            "source_path": str(path),
            "git_commit": "abc",
            "timestamp": "2025-01-15T12:00:00",
            "experiments": [
                {
                    "experiment_index": 0,
                    "kind": "PHQ-8",
                    "mode": "few_shot",
                    "participants": 2,
                    "failed": 1,
                    "items": 8,
                    "predicted": 3,
                    "abstained": 5,
                    "abstention_rate": 0.625,
                }
            ],
        }
    ]
    assert list(json.loads(result.stdout)[0]) == [
        "run_id",
        "source_path",
        "git_commit",
        "timestamp",
        "ingested_at",
        "experiments",
    ]


def test_runs_json_on_an_empty_warehouse(warehouse_path, run_cli):
    result = run_cli(["runs", "--json", "--warehouse", warehouse_path])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "[]\n", "")


def test_runs_table_lists_each_experiment(shared_dir, warehouse_path, run_cli):
    path = shared_dir / "fixtures" / "runs" / "public30.json"
    assert run_cli(["ingest", path, "--warehouse", warehouse_path]).exit_code == 0
    result = run_cli(["runs", "--warehouse", warehouse_path])
    rows = [line.split()[:8] for line in result.stdout.splitlines()[1:]]
    assert rows == [
        ["public030", "zero_shot", "30", "1", "232", "132", "100", "43.1%"],
        ["public030", "few_shot", "30", "2", "224", "176", "48", "21.4%"],
    ]


def test_storage_version_is_pinned_for_bi_tools(shared_dir, warehouse_path, run_cli, sql):
    assert run_cli(["ingest", worked_path(shared_dir), "--warehouse", warehouse_path]).exit_code == 0
    ((stored,),) = sql(warehouse_path, "SELECT value FROM warehouse_meta WHERE key = 'storage_version'")
    assert stored.startswith("v1.4")
    ((tag,),) = sql(
        warehouse_path,
        "SELECT tags['storage_version'] FROM duckdb_databases() WHERE database_name = current_database()",
    )
    assert tag == stored
    assert sql(warehouse_path, "SELECT value FROM warehouse_meta WHERE key = 'duckdb_library_version'") == [
        (duckdb.__version__,)
    ]


def test_no_command_prints_help(run_cli):
    result = run_cli([])
    assert result.exit_code == 2  # no_args_is_help: help text, usage-error exit code
    for command in ("ingest", "runs", "migrate"):
        assert re.search(rf"\b{command}\b", result.stdout), command


@pytest.mark.skipif(not RISKCOV.exists(), reason="no riskcov console script next to python")
def test_installed_command_from_another_cwd_uses_riskcov_warehouse(shared_dir, tmp_path):
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    target = tmp_path / "store" / "env.duckdb"
    env = {**os.environ, "RISKCOV_WAREHOUSE": str(target)}
    path = worked_path(shared_dir)

    def riskcov(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(RISKCOV), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
        )

    ingest = riskcov("ingest", str(path))
    assert (ingest.returncode, ingest.stderr) == (0, "")
    assert ingest.stdout == (f"ingested {path}: run worked01: 1 experiment(s), 2 participants, 8 items\n")
    runs = riskcov("runs", "--json")
    assert runs.returncode == 0
    assert [(r["run_id"], r["experiments"][0]["predicted"]) for r in json.loads(runs.stdout)] == [
        ("worked01", 3)
    ]
    assert target.is_file()
    assert list(cwd.iterdir()) == []  # nothing written where the command ran
    again = riskcov("ingest", str(path))
    assert again.stdout == f"unchanged {path}: run worked01 already ingested (same sha256)\n"


@pytest.mark.skipif(not RISKCOV.exists(), reason="no riskcov console script next to python")
def test_installed_command_defaults_to_warehouse_folder_of_cwd(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "RISKCOV_WAREHOUSE"}

    def riskcov(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(RISKCOV), *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    result = riskcov("runs", "--json")  # reading creates nothing
    assert (result.returncode, result.stdout, result.stderr) == (0, "[]\n", "")
    assert not (tmp_path / "warehouse").exists()
    assert riskcov("migrate").returncode == 0
    assert sorted(p.name for p in (tmp_path / "warehouse").iterdir()) == ["riskcov.duckdb"]


def test_runs_table_on_an_empty_warehouse_says_so(warehouse_path, run_cli):
    assert run_cli(["migrate", "--warehouse", warehouse_path]).exit_code == 0
    result = run_cli(["runs", "--warehouse", warehouse_path])
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "no runs yet: riskcov ingest PATH...\n",
        "",
    )


def test_version(run_cli):
    import duckdb

    from riskcov import __version__

    result = run_cli(["--version"])
    assert (result.exit_code, result.stdout) == (0, f"riskcov {__version__} (duckdb {duckdb.__version__})\n")


def test_runs_speaks_of_samples_for_per_sample_runs(shared_dir, warehouse_path, run_cli, tmp_path):
    """A per-sample run's experiments are a table of their own: clusters and samples."""
    samples = tmp_path / "preds.csv"
    samples.write_text(
        "sample_id,cluster,confidence,correct,split\na,1,0.9,1,cal\nb,1,0.4,0,cal\nc,2,0.5,1,test\n"
    )
    for path in (worked_path(shared_dir), samples):
        assert run_cli(["ingest", path, "--warehouse", warehouse_path]).exit_code == 0
    result = run_cli(["runs", "--warehouse", warehouse_path])
    tables = [t.splitlines() for t in result.stdout.split("\n\n")]
    assert [t[0].split()[:7] for t in tables] == [
        ["run_id", "mode", "participants", "failed", "items", "predicted", "abstained"],
        ["run_id", "experiment", "clusters", "failed", "samples", "predicted", "abstained"],
    ]
    assert [line.split()[:3] for line in tables[1][1:]] == [["preds", "preds", "seed"]] * 2
    # cal: cluster 1 holds both samples; test: one cluster, one sample
    counts = [line.split()[6:11] for line in tables[1][1:]]
    assert counts == [["1", "0", "2", "2", "0"], ["1", "0", "1", "1", "0"]]
    listing = json.loads(run_cli(["runs", "--json", "--warehouse", warehouse_path]).stdout)
    assert [e["kind"] for r in listing for e in r["experiments"]] == ["per-sample", "per-sample", "PHQ-8"]


def _closed_stdout(
    args: list[str], tmp_path: Path, *, publish: bool = False
) -> subprocess.CompletedProcess[str]:
    """The command with a stdout whose reader has gone (`riskcov ... | head -0`)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        env = {**os.environ, "RISKCOV_PUBLISH": "1" if publish else "0"}
        cmd = [sys.executable, "-c", "from riskcov.cli import main; main()", *args]
        return subprocess.run(cmd, stdout=write_end, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    finally:
        os.close(write_end)


def test_a_closed_stdout_is_one_line_exit_141_not_a_bug(tmp_path):
    """`riskcov sql ... | head -1` said 'internal error (BrokenPipeError ...) This is a bug in
    riskcov' (exit 70)."""
    done = _closed_stdout(["sql", "--table", "t"], tmp_path)
    assert (done.returncode, done.stderr) == (
        141,
        "error: stdout was closed before the output was written (broken pipe); nothing of this "
        "command was stored\n",
    )


@pytest.mark.parametrize("args", [["--help"], [], ["evaluate", "--help"], ["csf"], ["--version"]])
def test_the_help_to_a_closed_stdout_is_one_line_exit_141(tmp_path, args):
    """`riskcov --help | head -1` exited 1 without a word: click prints the help (and rich, and
    --version) while it parses, outside the commands' @guarded."""
    done = _closed_stdout(args, tmp_path)
    assert (done.returncode, done.stderr) == (
        141,
        "error: stdout was closed before the output was written (broken pipe); nothing of this "
        "command was stored\n",
    )


def test_a_closed_stdout_after_an_evaluation_says_it_was_stored(tmp_path):
    example = Path(__file__).resolve().parents[2] / "examples" / "example_run.json"
    args = ["evaluate", "--input", str(example), "--mode", "few_shot", "--bootstrap-resamples", "0", "--json"]
    done = _closed_stdout([*args, "--warehouse", str(tmp_path / "w.duckdb")], tmp_path)
    assert (done.returncode, done.stderr) == (
        141,
        "error: stdout was closed before the output was written (broken pipe); evaluation 1 stored "
        "before it; the rest was rolled back\n",
    )


def test_a_closed_stdout_after_an_evaluation_still_publishes_it(tmp_path):
    """`riskcov evaluate ... | head -1` stored the evaluation but left the BI snapshot without
    it, and said nothing of the snapshot: a command that stored its work publishes it, as an
    ingest that stored part of a batch does (ExitAfterWriting)."""
    example = Path(__file__).resolve().parents[2] / "examples" / "example_run.json"
    warehouse = tmp_path / "w.duckdb"
    args = ["evaluate", "--input", str(example), "--mode", "few_shot", "--bootstrap-resamples", "0", "--json"]
    done = _closed_stdout([*args, "--warehouse", str(warehouse)], tmp_path, publish=True)
    assert done.returncode == 141
    assert done.stderr.startswith(f"published {tmp_path / 'riskcov-bi.duckdb'}: ")
    assert done.stderr.endswith(
        "error: stdout was closed before the output was written (broken pipe); evaluation 1 stored "
        "before it; the rest was rolled back\n"
    )
    snapshot = duckdb.connect(str(tmp_path / "riskcov-bi.duckdb"), read_only=True)
    assert snapshot.execute("SELECT evaluation_id FROM evaluations").fetchall() == [(1,)]
    snapshot.close()
