"""What the benchmark scripts share: the run generator, the riskcov executable, /usr/bin/time."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def make_example() -> ModuleType:
    """scripts/make_example.py as a module."""
    spec = importlib.util.spec_from_file_location("make_example", ROOT / "scripts" / "make_example.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def riskcov_exe() -> str:
    """The riskcov installed beside this python, else the one on PATH."""
    beside = Path(sys.executable).parent / "riskcov"
    found = str(beside) if beside.exists() else shutil.which("riskcov")
    if not found:
        sys.exit("riskcov is not installed next to this python nor on PATH")
    return found


def compile_package() -> None:
    """Byte-compile the riskcov package this python imports, as pip does when it installs a
    wheel: an editable install under PYTHONDONTWRITEBYTECODE=1 (set on the project's machine)
    would otherwise compile every riskcov module again in each timed run (~0.15 CPU-s)."""
    spec = importlib.util.find_spec("riskcov")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("riskcov is not importable from this python")
    folder = next(iter(spec.submodule_search_locations))
    subprocess.run([sys.executable, "-m", "compileall", "-q", folder], check=True, capture_output=True)


def riskcov_env() -> dict[str, str]:
    """The environment for riskcov subprocesses: this checkout's src/ first on PYTHONPATH, so a
    worktree benchmarks its own code even when the installed riskcov is another checkout's."""
    paths = [str(ROOT / "src"), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def time_v(stderr: str) -> tuple[float, int]:
    """(wall seconds, peak RSS bytes) from the output of /usr/bin/time -v."""
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    if not wall or not rss:
        raise RuntimeError(f"cannot read /usr/bin/time -v output:\n{stderr}")
    seconds = 0.0
    for part in wall.group(1).split(":"):
        seconds = seconds * 60 + float(part)
    return seconds, int(rss.group(1)) * 1024
