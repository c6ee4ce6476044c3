"""ingest, evaluate, publish and calibrate killed (SIGKILL) or interrupted (SIGINT) at random
moments: nothing partial is stored, nothing is left behind once the next command has run, and a
Ctrl-C's message says what is true (docs/reliability.md). The moments are drawn from a seeded
generator, so a failure repeats; the `slow` variant tries more of them."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "example_run.json"
RUN_ID = json.loads(EXAMPLE.read_text())["run_metadata"]["run_id"]
CLI = [sys.executable, "-c", "from riskcov.cli import main; main()"]
BIG_ROWS = 60_000
COMMANDS = ("ingest", "evaluate", "publish", "calibrate")


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a warehouse holding the example run, a per-sample table of BIG_ROWS rows to ingest)."""
    folder = tmp_path_factory.mktemp("kill")
    wh = folder / "w.duckdb"
    env = {**os.environ, "RISKCOV_PUBLISH": "0"}
    subprocess.run(
        [*CLI, "ingest", str(EXAMPLE), "--warehouse", str(wh)], env=env, check=True, capture_output=True
    )
    big = folder / "big.csv"
    rows = "".join(f"{i},{(i * 7919 % 1000) / 1000},{i % 3 == 0}\n" for i in range(BIG_ROWS))
    big.write_text("sample_id,confidence,correct\n" + rows)
    return wh, big


def _args(command: str, folder: Path, big: Path) -> list[str]:
    if command == "ingest":
        return ["ingest", str(big)]
    if command == "evaluate":
        return ["evaluate", "--input", RUN_ID, "--mode", "few_shot", "--bootstrap-resamples", "2000"]
    if command == "publish":
        return ["publish", "--to", str(folder / "bi.duckdb")]
    return ["calibrate", "--input", RUN_ID, "--mode", "few_shot", "--method", "isotonic", "--features",
            "token_msp", "--output", str(folder / "cal.json")]  # fmt: skip


def _rows(wh: Path, sql: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(wh), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _recover(command: str, folder: Path, wh: Path) -> None:
    """What the next command of that kind does first (riskcov.report.store / calibration.store /
    publish), then a read that replays DuckDB's own WAL."""
    from riskcov.evaluation.prepared_warehouse import open_warehouse
    from riskcov.report.store import recover_artifacts
    from riskcov.scoring.calibration.store import recover_output
    from riskcov.warehouse.publish import publish_snapshot

    with open_warehouse(wh) as con:
        if command == "evaluate":
            recover_artifacts(con, wh, None)
        elif command == "calibrate":
            recover_output(con, folder / "cal.json")
        elif command == "publish":
            publish_snapshot(con, folder / "bi.duckdb")


def _check(command: str, folder: Path, wh: Path, stderr: str) -> str:
    """The invariants after a kill and the recovery; returns what was found stored ("" or a name)."""
    leftovers = sorted(p.name for p in folder.rglob("*") if p.name.endswith(".tmp"))
    assert leftovers == [], leftovers
    if command == "ingest":
        (n,) = _rows(
            wh, "SELECT count(*) FROM samples JOIN experiments USING (experiment_id) WHERE run_id = 'big'"
        )[0]
        runs = _rows(wh, "SELECT count(*) FROM runs WHERE run_id = 'big'")[0][0]
        assert (runs, n) in ((0, 0), (1, BIG_ROWS))
        stored = "run big" if runs else ""
    elif command == "evaluate":
        stored_rows = _rows(wh, "SELECT evaluation_id, artifact_path FROM evaluations ORDER BY 1")
        files = sorted((wh.parent / "artifacts").glob("*.json")) if (wh.parent / "artifacts").exists() else []
        assert sorted(Path(p) for _, p in stored_rows) == files
        for eid, _ in stored_rows:
            assert _rows(wh, f"SELECT count(*) > 0 FROM evaluation_metrics WHERE evaluation_id = {eid}")[0][0]
        stored = f"evaluation {stored_rows[-1][0]}" if stored_rows else ""
    elif command == "calibrate":
        cals = _rows(wh, "SELECT calibrator_id, sha256 FROM calibrators")
        out = folder / "cal.json"
        assert len(cals) <= 1 and out.exists() == bool(cals)
        if cals:
            assert hashlib.sha256(out.read_bytes()).hexdigest() == cals[0][1]
        stored = f"calibrator {cals[0][0]}" if cals else ""
    else:
        con = duckdb.connect(str(folder / "bi.duckdb"), read_only=True)
        assert con.execute("SELECT count(*) FROM warehouse_meta WHERE key = 'published_from'").fetchone() == (
            1,
        )
        con.close()
        stored = ""
    if stderr.startswith("error: interrupted after "):
        assert stored and stderr.startswith(f"error: interrupted after {stored} was stored"), (stderr, stored)
    return stored


def _default_sigint() -> None:
    # a test runner's worker may ignore SIGINT, and a child inherits that: restore the default,
    # so Python installs its KeyboardInterrupt handler as under a terminal
    signal.signal(signal.SIGINT, signal.SIG_DFL)


_DURATION: dict[str, float] = {}


def _duration(command: str, seeded: tuple[Path, Path], folder: Path) -> float:
    """How long the command runs uninterrupted here (measured once per process), so the kill
    moments spread over its whole run: start-up, work, COMMIT and the renames after it."""
    if command not in _DURATION:
        template, big = seeded
        work = folder / "measure"
        work.mkdir()
        (work / "w.duckdb").write_bytes(template.read_bytes())
        start = time.monotonic()
        subprocess.run(
            [*CLI, *_args(command, work, big), "--warehouse", str(work / "w.duckdb")],
            env={**os.environ, "RISKCOV_PUBLISH": "0"},
            capture_output=True,
            check=True,
        )
        _DURATION[command] = time.monotonic() - start
    return _DURATION[command]


def _trial(command: str, sig: signal.Signals, share: float, seeded: tuple[Path, Path], folder: Path) -> None:
    template, big = seeded
    delay = share * _duration(command, seeded, folder)
    wh = folder / "w.duckdb"
    wh.write_bytes(template.read_bytes())
    env = {**os.environ, "RISKCOV_PUBLISH": "0"}
    proc = subprocess.Popen(
        [*CLI, *_args(command, folder, big), "--warehouse", str(wh)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )
    time.sleep(delay)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=120)
    if sig == signal.SIGINT and proc.returncode not in (0, -signal.SIGINT):
        assert proc.returncode == 130, stderr
        assert stderr.count("\n") == 1 and stderr.startswith("error: interrupted"), stderr
    _recover(command, folder, wh)
    stored = _check(command, folder, wh, stderr if proc.returncode == 130 else "")
    log = os.environ.get("RISKCOV_KILL_LOG")  # the figures of docs/reliability.md
    if log:
        with open(log, "a") as f:
            f.write(json.dumps([command, sig.name, round(delay, 2), proc.returncode, stored]) + "\n")


def _moments(count: int, seed: int) -> list[tuple[str, signal.Signals, float]]:
    rng = random.Random(seed)
    return [
        (command, sig, round(rng.uniform(0.2, 1.05), 3))  # a share of the command's duration
        for command in COMMANDS
        for sig in (signal.SIGKILL, signal.SIGINT)
        for _ in range(count)
    ]


@pytest.mark.parametrize(("command", "sig", "share"), _moments(1, seed=24))
def test_a_kill_leaves_nothing_partial(command, sig, share, seeded, tmp_path):
    _trial(command, sig, share, seeded, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize(("command", "sig", "share"), _moments(2, seed=2024))
def test_a_kill_leaves_nothing_partial_at_more_moments(command, sig, share, seeded, tmp_path):
    _trial(command, sig, share, seeded, tmp_path)


@pytest.mark.parametrize("share", [0.7, 0.75, 0.8, 0.85, 0.9, 0.95])
def test_ctrl_c_late_in_calibrate_is_an_interrupt(share, seeded, tmp_path):
    """Ctrl-C while calibrate's statements run (the fit's last queries) exits 130 or finishes,
    never an internal error: these moments gave ResourceInUse / 'Error: KeyboardInterrupt' as a
    riskcov bug before."""
    _trial("calibrate", signal.SIGINT, share, seeded, tmp_path)
