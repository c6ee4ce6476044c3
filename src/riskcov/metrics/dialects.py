"""What the portable metric queries may use, and the per-dialect rewrites sqlglot alone lacks.

sqlglot transpiles DuckDB-only constructs without complaint (even at ErrorLevel.RAISE) and the
engine then rejects them, so portability is decided here by a whitelist checked on the parsed
queries (`problems`, run by tests/unit/test_portable_lint.py), and proved by running the
renderings (DuckDB, PostgreSQL, Spark). Constructs of DuckDB's dialect and their fate:

- rewritten for every other engine (`transform`): `isfinite(x)` -> `abs(x) <= max double`
  (NaN, +-inf and NULL fail it as in DuckDB); `HUGEINT` -> `DECIMAL(38, 0)`;
- rewritten for Spark: `CAST(<number> AS DOUBLE)` -> `CAST('<number>' AS DOUBLE)` (see
  `_double_literals`);
- refused (REFUSED), because at least one target has no equivalent or it relies on row order:
  ordered aggregates (`fsum`, `sum(x ORDER BY ...)`, `list(x ORDER BY ...)`), `error()`,
  `* EXCLUDE` / `* REPLACE`, `AS MATERIALIZED`, `ASOF JOIN`, `COLUMNS(*)`, `arg_max`,
  `arg_max_null`, `max_by`, `nextafter`, `quantile_cont`, aggregate `FILTER`, `QUALIFY`,
  table functions (`query_table`, `range`, `unnest`), and any function not in FUNCTIONS.
"""

from __future__ import annotations

from sqlglot import exp

DIALECTS = ("duckdb", "spark", "postgres", "trino", "bigquery")
MAX_DOUBLE = "1.7976931348623157e308"

# the function expressions a portable query may call: each renders on every target
FUNCTIONS: tuple[type[exp.Expr], ...] = (
    exp.Count,
    exp.Sum,
    exp.Max,
    exp.Min,
    exp.Coalesce,
    exp.Cast,
    exp.Ln,
    exp.Floor,
    exp.Ceil,
    exp.Abs,
    exp.Least,
    exp.Greatest,
    exp.Nullif,
    exp.RowNumber,
    exp.DenseRank,
    exp.FirstValue,
    exp.Lag,
    exp.Lead,
)
# function-shaped syntax every target spells the same
_OPERATORS = (exp.Connector, exp.Case, exp.If, exp.Binary, exp.Unary, exp.Paren)
# anonymous (dialect-specific) functions with a rewrite in `transform`
REWRITTEN = ("isfinite",)
REFUSED = {
    "fsum": "an ordered compensated sum (DuckDB only): sum exact DECIMALs instead",
    "sumkahan": "an ordered compensated sum (DuckDB only): sum exact DECIMALs instead",
    "arg_max": "sqlglot maps it to max_by, which skips NULLs where arg_max_null does not: use row_number",
    "arg_max_null": "no equivalent outside DuckDB: use row_number() over a total order",
    "arg_min": "use row_number() over a total order",
    "max_by": "NULL handling differs between engines: use row_number() over a total order",
    "nextafter": "no equivalent in PostgreSQL: compare with an explicit bound",
    "quantile_cont": "rounding differs between engines: interpolate between row_number neighbours",
    "error": "no portable way to fail a query: check in the caller",
    "query_table": "a DuckDB table macro argument: read a named relation",
    "columns": "COLUMNS(*) is DuckDB's: name the columns",
    "unnest": "arrays differ between engines: pass a relation",
    "range": "table functions differ between engines: pass a relation",
    "generate_series": "table functions differ between engines: pass a relation",
}


def _name(node: exp.Expr) -> str:
    return str(node.name if isinstance(node, exp.Anonymous) else node.key).lower()


def problems(tree: exp.Expr) -> list[str]:
    """Why `tree` is not portable: one line per construct no target may lack (empty: it is)."""
    out: list[str] = []
    for node in tree.walk():
        if isinstance(node, exp.Anonymous):
            name = node.name.lower()
            if name in REWRITTEN:
                continue
            out.append(f"{name}(): {REFUSED.get(name, 'not a known portable function (dialects.FUNCTIONS)')}")
        elif isinstance(node, exp.Func) and not isinstance(node, (*FUNCTIONS, *_OPERATORS)):
            name = _name(node)
            why = REFUSED.get(name, "not a known portable function (dialects.FUNCTIONS)")
            if isinstance(node, exp.ArrayAgg):
                why = "lists and ordered aggregates differ between engines"
            out.append(f"{name}(): {why}")
        elif isinstance(node, exp.Order) and isinstance(node.parent, exp.Func):
            out.append("an ORDER BY inside an aggregate: its order is DuckDB's; use a window ORDER BY")
        elif isinstance(node, exp.Filter):
            out.append("aggregate FILTER (WHERE ...): use sum(CASE WHEN ... THEN 1 ELSE 0 END)")
        elif isinstance(node, exp.Star) and (node.args.get("except_") or node.args.get("replace")):
            out.append("* EXCLUDE / * REPLACE: name the columns")
        elif isinstance(node, exp.CTE) and node.args.get("materialized") is not None:
            out.append("AS MATERIALIZED: a DuckDB hint without equivalent; drop it")
        elif isinstance(node, exp.Join) and str(node.args.get("method") or "").upper() == "ASOF":
            out.append("ASOF JOIN: join on the range and pick with row_number()")
        elif isinstance(node, exp.Select) and node.args.get("qualify") is not None:
            out.append("QUALIFY: filter a window's result in an outer SELECT")
        elif isinstance(node, exp.Table) and isinstance(node.this, exp.Func):
            out.append(f"table function {_name(node.this)}(): pass a relation")
    return out


def _isfinite(node: exp.Expr) -> exp.Expr:
    if isinstance(node, exp.Anonymous) and node.name.lower() == "isfinite":
        arg = node.expressions[0]
        return exp.paren(exp.LTE(this=exp.Abs(this=arg), expression=exp.Literal.number(MAX_DOUBLE)))
    return node


def _hugeint(node: exp.Expr) -> exp.Expr:
    if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.INT128:
        return exp.DataType.build("DECIMAL(38, 0)")
    return node


def _window_nulls(node: exp.Expr) -> exp.Expr:
    """BigQuery refuses NULLS FIRST / LAST in a window's ORDER BY. No portable query orders a
    window by a key that can be NULL there (a nullable key is ordered by `key IS NULL` first),
    so the NULL placement is left to BigQuery's default."""
    if isinstance(node, exp.Ordered) and node.find_ancestor(exp.Window) is not None:
        node.set("nulls_first", not node.args.get("desc"))
    return node


def _double_literals(node: exp.Expr) -> exp.Expr:
    """Spark reads a number literal as a DECIMAL, and its conversion of a DECIMAL of more
    digits than a long holds exactly to a double may round twice; a string is parsed once,
    to the nearest double, as DuckDB parses the literal. So a number cast to DOUBLE is cast
    from its text instead (the calibrators' coefficients are written so, with 17 digits). DuckDB
    negates a literal without an exponent as a DECIMAL, which has no -0: its `-0.0` is +0.0,
    and so is the text Spark gets."""
    if not isinstance(node, exp.Cast) or not node.to.is_type("double"):
        return node
    value, sign = node.this, ""
    if isinstance(value, exp.Neg):  # a negative number parses as the negation of a literal
        value, sign = value.this, "-"
    if isinstance(value, exp.Literal) and value.is_number:
        if float(value.this) == 0 and "e" not in value.this.lower():
            sign = ""
        node.this.replace(exp.Literal.string(sign + value.this))
    return node


# the exact loss-sum types of the portable queries (cells.sql): a loss, a multiplicity
EXACT_SUMS = ("DECIMAL(27, 18)", "DECIMAL(10, 0)")


def _integral_sums(node: exp.Expr) -> exp.Expr:
    """The exact loss-sum DECIMALs as DOUBLE. Only for integer losses whose every sum stays
    below 2**53 (the caller checks): a double then holds each loss, product and partial sum
    exactly, as the DECIMAL does, so every value keeps its bits, and an engine without a fast
    wide DECIMAL (Spark computes one above 18 digits with java.math.BigDecimal) adds doubles."""
    if isinstance(node, exp.DataType) and node.sql() in EXACT_SUMS:
        return exp.DataType.build("DOUBLE")
    return node


def transform(tree: exp.Expr, dialect: str, integral: bool = False) -> exp.Expr:
    """`tree` (DuckDB's dialect) with each construct rewritten that `dialect` lacks; with
    `integral`, the exact loss sums as doubles (_integral_sums)."""
    if integral:
        tree = tree.transform(_integral_sums)
    if dialect == "duckdb":
        return tree
    rules = [_isfinite, _hugeint]
    rules += [_window_nulls] if dialect == "bigquery" else []
    rules += [_double_literals] if dialect == "spark" else []
    for rule in rules:
        tree = tree.transform(rule)
    return tree
