"""The portable metric queries of `sql/portable/`: loaded, inlined into one SELECT, rendered per engine.

Each file there is one SELECT over named relations, written in a restricted DuckDB dialect,
with a contract header (`-- portable: NAME`, `-- reads: ...`, `-- columns: ...`). A query reads
either another portable query (inlined here as CTEs, its own CTEs renamed `query__cte` so
that two inlined queries never clash) or an input relation (INPUTS), which the caller names:
a table, a view, or a SELECT mapping a user's columns (`riskcov sql`, docs/spark.md).
sqlglot renders the inlined statement for each engine after the per-dialect transforms of
metrics/dialects.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import sqlglot
from sqlglot import exp

from riskcov.errors import UsageError
from riskcov.metrics.dialects import DIALECTS, transform
from riskcov.resources import resource_dir

# the relations a caller provides, with the columns the queries read
INPUTS = {
    "scored": ("series", "cluster", "confidence", "loss", "loss_scale"),
    "labelled": ("series", "cluster", "confidence", "loss", "loss_scale", "label"),
    "samples": ("replicate", "cluster", "multiplicity"),
    "truncation": ("c",),
    "coverages": ("c",),
    "alphas": ("alpha",),
    "costs": ("cost",),
    "scores": ("series", "score", "positive"),
    "domain_scores": ("series", "confidence", "ood"),
    "targets": ("c",),
    "grouped": ("series", "confidence", "grp"),
    "thresholds": ("series", "alpha", "threshold"),
    "probabilities": ("series", "prob", "correct"),
    "bins": ("n_bins",),
}
# what `riskcov sql --metric` offers: the queries a user runs (the others are their parts)
METRICS = (
    "points",
    "summary",
    "areas",
    "oracle",
    "mae_at_coverage",
    "coverage_at_risk",
    "effective_reliability",
    "balanced",
    "auroc",
    "ood_at_id_coverage",
)
_HEADER = re.compile(r"^-- (portable|reads|columns): *(.*)$", re.MULTILINE)


@dataclass(frozen=True)
class Query:
    """One file of sql/portable/: its name, what it reads and returns, and its SELECT."""

    name: str
    reads: tuple[str, ...]
    columns: tuple[str, ...]
    text: str

    def parse(self) -> exp.Query:
        tree = sqlglot.parse_one(self.text, read="duckdb")
        assert isinstance(tree, exp.Query), self.name
        return tree


def _split(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip())


@cache
def queries() -> dict[str, Query]:
    """Every portable query by name, from its file's contract header."""
    out = {}
    for path in sorted((resource_dir("sql") / "portable").glob("*.sql")):
        text = path.read_text()
        header = {k: v for k, v in _HEADER.findall(text)}
        name = header.get("portable", "")
        if name != path.stem:
            raise ValueError(f"{path}: the header's `-- portable:` must name the file ({path.stem})")
        out[name] = Query(name, _split(header.get("reads", "")), _split(header.get("columns", "")), text)
    return out


def closure(name: str, given: frozenset[str] = frozenset()) -> list[str]:
    """The portable queries `name` needs, dependencies first, `name` last; the queries in
    `given` are relations the caller holds (e.g. a cached `points`), not inlined."""
    qs = queries()
    if name not in qs:
        raise UsageError(f"no portable query {name!r}; one of: {', '.join(sorted(qs))}")
    order: list[str] = []

    def visit(n: str) -> None:
        for dep in qs[n].reads:
            if dep in qs and dep not in order and dep not in given:
                visit(dep)
        if n not in order:
            order.append(n)

    visit(name)
    return order


def inputs_of(name: str, given: frozenset[str] = frozenset()) -> list[str]:
    """The relations `name` reads that are not inlined: inputs and the `given` queries."""
    qs = queries()
    return sorted({r for n in closure(name, given) for r in qs[n].reads if r not in qs or r in given})


def _renamed(tree: exp.Query, prefix: str, names: dict[str, str]) -> tuple[list[exp.CTE], exp.Query]:
    """The query's own CTEs (renamed prefix__cte) and its body, every table reference mapped
    through `names` (inlined queries and inputs) and the renamed CTEs."""
    tree = tree.copy()
    with_ = tree.args.get("with_") or tree.args.get("with")
    local: dict[str, str] = {}
    ctes: list[exp.CTE] = []
    if with_ is not None:
        for cte in with_.expressions:
            local[cte.alias_or_name] = f"{prefix}__{cte.alias_or_name}"
        tree.set("with_" if "with_" in tree.args else "with", None)
        ctes = list(with_.expressions)
    mapping = {**names, **local}
    parts: list[exp.Expr] = [*ctes, tree]
    for part in parts:
        for table in part.find_all(exp.Table):
            if not table.args.get("db") and table.name in mapping:
                alias = table.alias or table.name
                table.set("this", exp.to_identifier(mapping[table.name]))
                if not table.alias:
                    table.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
        if isinstance(part, exp.CTE):
            part.set("alias", exp.TableAlias(this=exp.to_identifier(local[part.alias_or_name])))
    return ctes, tree


def inline(name: str, relations: dict[str, str] | None = None) -> exp.Query:
    """One SELECT computing `name`: every portable query it reads as CTEs before it.
    `relations` maps an input relation to a table name or to a SELECT (becomes a CTE); a
    portable query named there is read from that relation instead of being inlined."""
    relations = relations or {}
    given = frozenset(r for r in relations if r in queries())
    names: dict[str, str] = {}
    ctes: list[exp.CTE] = []
    for rel in inputs_of(name, given):
        source = relations.get(rel, rel)
        if source.lstrip("( \n").upper().startswith(("SELECT", "WITH")):
            cte_name = f"input__{rel}"
            body = sqlglot.parse_one(source, read="duckdb")
            ctes.append(exp.CTE(this=body, alias=exp.TableAlias(this=exp.to_identifier(cte_name))))
            names[rel] = cte_name
        else:
            names[rel] = source
    qs = queries()
    order = closure(name, given)
    for dep in order[:-1]:
        inner, body = _renamed(qs[dep].parse(), dep, names)
        ctes.extend(inner)
        ctes.append(exp.CTE(this=body, alias=exp.TableAlias(this=exp.to_identifier(dep))))
        names[dep] = dep
    inner, body = _renamed(qs[name].parse(), name, names)
    ctes.extend(inner)
    if not ctes:
        return body
    key = "with_" if "with_" in exp.Select.arg_types else "with"
    body.set(key, exp.With(expressions=ctes))
    return body


def render(
    name: str,
    dialect: str,
    relations: dict[str, str] | None = None,
    pretty: bool = True,
    integral: bool = False,
) -> str:
    """The SQL text computing portable query `name` on `dialect` (one of DIALECTS); with
    `integral` (only for integer losses whose sums stay below 2**53) the loss sums in doubles,
    which then hold them exactly (dialects._integral_sums)."""
    if dialect not in DIALECTS:
        raise UsageError(f"--dialect {dialect}: one of {', '.join(DIALECTS)}")
    tree = transform(inline(name, relations), dialect, integral)
    return tree.sql(dialect=dialect, pretty=pretty, unsupported_level=sqlglot.ErrorLevel.RAISE)
