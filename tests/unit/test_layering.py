"""The pipeline's layering (docs/architecture.md), checked over the import graph of src/riskcov:
module-level imports, imports inside functions and `if TYPE_CHECKING:` blocks, and
`importlib.import_module("riskcov...")` calls alike.

Each package sits in one layer; a module imports only from its own layer and the layers below,
never from a layer above; nothing imports a front end; the packages form no cycle."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

import riskcov

# the layers, lowest first: a module may import from its own layer and the layers before it
LAYERS = (
    "warehouse",  # the file, its schema and tables: storage every stage writes to
    "formats",  # run files parsed and their rows stored
    "ingest",  # files into the warehouse; --input resolved to stored experiments
    "scoring",  # CSFs (calibrated and the user's) and the scored relation
    "metrics",  # the SQL metric macros run per replicate
    "bootstrap",  # cluster resamples, intervals and curve bands
    "report",  # the artifact, stored evaluation rows, console, HTML and plots
    "evaluation",  # the one orchestrator: a prepared warehouse, runs, curves, calibration
    "riskcontrol",  # risk control, OOD and compare on top of evaluations
)
FRONT_ENDS = ("cli", "api")  # may import anything; nothing imports them
ANYWHERE = ("errors", "resources")  # may be imported from anywhere; import nothing of riskcov
ROOT = "riskcov"  # the version, and the Python API loaded lazily: read by all, loads the API

SRC = Path(riskcov.__file__).resolve().parent


def module_name(path: Path, src: Path = SRC) -> str:
    parts = list(path.relative_to(src.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(tree: ast.AST, module: str, is_package: bool, known: set[str]) -> list[tuple[str, int, bool]]:
    """(imported module, line, inside a function) of every import of riskcov in a module's
    tree; `from X import y` counts as X.y when that is a module, else X."""
    package = module if is_package else module.rpartition(".")[0]
    local_nodes: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            local_nodes |= {id(n) for n in ast.walk(node) if n is not node}
    out: list[tuple[str, int, bool]] = []
    for node in ast.walk(tree):
        local = id(node) in local_nodes
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            for alias in node.names:
                full = f"{origin}.{alias.name}"
                targets.append(full if full in known else origin)
        elif (
            isinstance(node, ast.Call)
            and (getattr(node.func, "attr", None) or getattr(node.func, "id", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            targets = [node.args[0].value]
        out += [(t, node.lineno, local) for t in targets if t == ROOT or t.startswith(ROOT + ".")]
    return sorted(out, key=lambda e: (e[1], e[0]))


def unit(module: str) -> str:
    """The top-level package (or module) of a module: riskcov.scoring.csf -> scoring."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT


def graph(src: Path = SRC) -> list[tuple[str, str, int, bool]]:
    """(importer, imported, line, function-local) for every import of riskcov in src."""
    files = sorted(src.rglob("*.py"))
    known = {module_name(f, src) for f in files}
    edges = []
    for f in files:
        name = module_name(f, src)
        tree = ast.parse(f.read_text(), str(f))
        for target, line, local in imports(tree, name, f.name == "__init__.py", known):
            edges.append((name, target, line, local))
    return edges


def allowed(a: str, b: str) -> bool:
    """May a module of unit `a` import one of unit `b`?"""
    if a == b or b in ANYWHERE:
        return True
    if a in ANYWHERE:
        return False
    if b == ROOT:  # the version
        return True
    if a in (*FRONT_ENDS, ROOT):
        return True
    if b in FRONT_ENDS:
        return False
    return LAYERS.index(b) < LAYERS.index(a)


def violations(edges: list[tuple[str, str, int, bool]]) -> list[str]:
    units = (*LAYERS, *FRONT_ENDS, *ANYWHERE, ROOT)  # a module outside them fails its own test
    out = []
    for a, b, line, local in edges:
        ua, ub = unit(a), unit(b)
        if ua in units and ub in units and not allowed(ua, ub):
            where = "inside a function" if local else "at module level"
            out.append(f"{a}:{line} ({ua}) imports {b} ({ub}) {where}")
    return sorted(out)


def package_cycles(edges: list[tuple[str, str, int, bool]]) -> list[list[str]]:
    """Strongly connected sets of more than one package (the root and errors/resources aside)."""
    succ: dict[str, set[str]] = {}
    for a, b, _, _ in edges:
        ua, ub = unit(a), unit(b)
        if ua != ub and ROOT not in (ua, ub) and ua not in ANYWHERE and ub not in ANYWHERE:
            succ.setdefault(ua, set()).add(ub)
            succ.setdefault(ub, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = itertools.count()

    def visit(v: str) -> None:  # Tarjan
        index[v] = low[v] = next(counter)
        stack.append(v)
        on.add(v)
        for w in sorted(succ[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                found.append(sorted(scc))

    for v in sorted(succ):
        if v not in index:
            visit(v)
    return found


def test_every_module_sits_in_a_layer() -> None:
    stray = sorted(
        module_name(f)
        for f in SRC.rglob("*.py")
        if unit(module_name(f)) not in (*LAYERS, *FRONT_ENDS, *ANYWHERE, ROOT)
    )
    assert stray == [], "modules outside the layers of docs/architecture.md"


def test_no_import_climbs_a_layer() -> None:
    assert violations(graph()) == []


def test_no_cycle_among_packages() -> None:
    assert package_cycles(graph()) == []


SAMPLE = """
import riskcov.scoring.csf
from riskcov.metrics import engine
from riskcov.errors import UsageError
from . import keys
from .. import warehouse
import numpy
if TYPE_CHECKING:
    from riskcov.evaluation.run import Options
def f():
    from riskcov.report.artifact import write
    return importlib.import_module("riskcov.cli")
"""


def test_the_reader_sees_every_kind_of_import() -> None:
    known = {"riskcov.metrics.engine", "riskcov.report.keys", "riskcov.warehouse"}
    got = imports(ast.parse(SAMPLE), "riskcov.report.summary", False, known)
    assert got == [
        ("riskcov.scoring.csf", 2, False),
        ("riskcov.metrics.engine", 3, False),
        ("riskcov.errors", 4, False),
        ("riskcov.report.keys", 5, False),
        ("riskcov.warehouse", 6, False),
        ("riskcov.evaluation.run", 9, False),
        ("riskcov.report.artifact", 11, True),
        ("riskcov.cli", 12, True),
    ]


def test_the_rule_flags_climbs_and_cycles() -> None:
    edges = [
        ("riskcov.metrics.engine", "riskcov.scoring.scored", 1, False),  # down: fine
        ("riskcov.warehouse.connection", "riskcov.scoring.csf", 2, True),  # up, hidden in a function
        ("riskcov.scoring.user_csf_store", "riskcov.warehouse.connection", 3, True),
        ("riskcov.report.store", "riskcov.cli.app", 4, False),  # a front end
        ("riskcov.cli.app", "riskcov.riskcontrol.suite", 5, False),  # a front end imports anything
        ("riskcov.errors", "riskcov.scoring.csf", 6, False),  # errors imports nothing
        ("riskcov.warehouse.connection", "riskcov", 7, False),  # the version
    ]
    assert violations(edges) == [
        "riskcov.errors:6 (errors) imports riskcov.scoring.csf (scoring) at module level",
        "riskcov.report.store:4 (report) imports riskcov.cli.app (cli) at module level",
        "riskcov.warehouse.connection:2 (warehouse) imports riskcov.scoring.csf (scoring) inside a function",
    ]
    assert package_cycles(edges) == [["scoring", "warehouse"]]


@pytest.mark.parametrize("layer", LAYERS)
def test_each_layer_is_a_package(layer: str) -> None:
    assert (SRC / layer / "__init__.py").exists()
