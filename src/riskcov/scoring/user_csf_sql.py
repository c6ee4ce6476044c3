"""The allow-list and printer behind riskcov.scoring.user_csf.compile_expression (see its docstring).

Every node must be of an allowed sqlglot class (the exact class, not a subclass); the SQL is printed
again here from the tree, so the user's text never reaches DuckDB.

>>> import sqlglot
>>> render(sqlglot.parse_one("exp(-token_pe)", read="duckdb"), {"token_pe": "DOUBLE"}, "sql:...")
('exp((-s.token_pe))', ('token_pe',))
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import NoReturn

from sqlglot import exp

from riskcov.errors import UsageError

NUM, BOOL, TEXT = "number", "condition", "text"
_Names = dict[type[exp.Expression], str]
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INTS = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
         "UBIGINT", "UHUGEINT", "FLOAT", "REAL"}  # fmt: skip
_UNARY: _Names = {exp.Abs: "abs", exp.Exp: "exp", exp.Ln: "ln", exp.Sqrt: "sqrt", exp.Sign: "sign",
                  exp.Floor: "floor", exp.Ceil: "ceil"}  # fmt: skip
_ARITH: _Names = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/"}
_COMPARE: _Names = {exp.EQ: "=", exp.NEQ: "<>", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">="}
_NARY: _Names = {exp.Coalesce: "coalesce", exp.Greatest: "greatest", exp.Least: "least"}
_TESTS: _Names = {exp.IsNan: "isnan", exp.IsInf: "isinf"}
ALLOWED_FUNCTIONS = ("abs", "ceil", "coalesce", "exp", "floor", "greatest", "if", "isfinite", "isinf",
                     "isnan", "least", "ln", "log", "log10", "log2", "pow", "power", "round", "sign",
                     "sqrt")  # fmt: skip
# fmt: off
_OPERATORS: _Names = {
    exp.IntDiv: "// (write floor(a / b))", exp.Mod: "%", exp.BitwiseAnd: "&", exp.BitwiseOr: "|",
    exp.BitwiseXor: "xor", exp.BitwiseNot: "~", exp.DPipe: "||", exp.BitwiseLeftShift: "<<",
    exp.BitwiseRightShift: ">>", exp.Like: "LIKE", exp.ILike: "ILIKE", exp.Glob: "GLOB",
    exp.SimilarTo: "SIMILAR TO", exp.RegexpLike: "~", exp.NullSafeEQ: "IS NOT DISTINCT FROM",
    exp.NullSafeNEQ: "IS DISTINCT FROM", exp.JSONExtract: "->", exp.JSONExtractScalar: "->>",
    exp.Bracket: "[...]",
}
# fmt: on


def render(
    root: exp.Expression, columns: Mapping[str, str], label: str, unknown: str | None = None
) -> tuple[str, tuple[str, ...]]:
    """The canonical SQL of a parsed expression and the columns it reads, in first-appearance order.

    Messages start with `label`; `unknown` says what a column not in `columns` fails to be (by
    default: a signal column of item_signals, with the near names or the signals listed).
    """
    return _Compiler(columns, label, unknown).run(root)


def show(text: str, limit: int = 60) -> str:
    r"""`text` on one ASCII line, cut to `limit` characters: messages quote the user's text.

    >>> show("a\u200b  +\n b")
    'a\\u200b + b'
    """
    flat = "".join(ch if " " <= ch <= "~" else ascii(ch)[1:-1] for ch in " ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _short(node: exp.Expression) -> str:
    return node.name if type(node) is exp.Column else show(node.sql("duckdb"), 40)


@dataclass(frozen=True)
class _Piece:
    sql: str
    kind: str
    node: exp.Expression  # printed for messages only on failure: printing every node is quadratic
    column: bool = False


class _Compiler:
    def __init__(self, columns: Mapping[str, str], label: str, unknown: str | None = None) -> None:
        bad = [c for c in columns if not _IDENTIFIER.match(c)]
        if bad:  # they are printed as they are: a caller's mistake, not the user's
            raise ValueError(f"signal column name {bad[0]!r} is not a plain identifier")
        self.columns, self.label, self.unknown = columns, label, unknown
        self.lookup = {c.lower(): c for c in columns}  # DuckDB folds identifier case, quoted too
        self.read: dict[str, None] = {}

    def fail(self, what: str) -> NoReturn:
        raise UsageError(f"{self.label}: {what}")

    def run(self, root: exp.Expression) -> tuple[str, tuple[str, ...]]:
        return self.num(root), tuple(self.read)

    def need(self, p: _Piece, kind: str) -> str:
        if p.kind == kind:
            return p.sql
        what = _short(p.node)
        if kind == NUM and p.kind == BOOL:
            self.fail(f"{what} is a condition, not a number (write CASE WHEN ... THEN 1 ELSE 0 END)")
        if kind == BOOL and p.kind == NUM:
            self.fail(f"{what} is a number, not a condition (compare it, e.g. {what} > 0.5)")
        self.fail(
            f"{what} is text, not a {kind}; text can only be compared with =, <> or IN "
            "between a text signal and quoted literals"
        )

    def num(self, node: exp.Expression) -> str:
        return self.need(self.r(node), NUM)

    def cond(self, node: exp.Expression) -> str:
        return self.need(self.r(node), BOOL)

    def args_ok(self, node: exp.Expression, operands: Collection[str]) -> None:
        """Refuse any non-empty argument besides the operands (e.g. TRY casts, FLOOR(x, 2))."""
        extra = [k for k, v in node.args.items() if v not in (None, False, []) and k not in operands]
        if extra:
            what = node.sql_name() if isinstance(node, exp.Func) else node.key.upper()
            self.fail(f"{what}: {extra[0]} is not allowed")

    def r(self, node: exp.Expression) -> _Piece:
        t = type(node)
        if t is exp.Paren:  # every operation is parenthesised when printed
            return self.r(node.this)
        if isinstance(node, exp.Column) and t is exp.Column:
            return self.column(node)
        if isinstance(node, exp.Literal) and t is exp.Literal:
            return self.literal(node)
        if t is exp.Boolean:
            return _Piece("TRUE" if node.this else "FALSE", BOOL, node)
        if t is exp.Null:
            self.fail("NULL is not allowed (test x IS NULL, or replace a null with coalesce(x, 0))")
        if t is exp.Neg:
            self.args_ok(node, {"this"})
            return _Piece(f"(-{self.num(node.this)})", NUM, node)
        if t is exp.Not:
            self.args_ok(node, {"this"})
            return _Piece(f"(NOT {self.cond(node.this)})", BOOL, node)
        if t in _UNARY:
            self.args_ok(node, {"this"})
            return _Piece(f"{_UNARY[t]}({self.num(node.this)})", NUM, node)
        if t in _TESTS:
            self.args_ok(node, {"this"})
            return _Piece(f"{_TESTS[t]}({self.num(node.this)})", BOOL, node)
        if t is exp.Anonymous and node.name.lower() == "isfinite" and len(node.expressions) == 1:
            return _Piece(f"isfinite({self.num(node.expressions[0])})", BOOL, node)
        if t in _NARY:
            self.args_ok(node, {"this", "expressions", "ignore_nulls"})  # DuckDB skips nulls
            return _Piece(
                f"{_NARY[t]}({', '.join(map(self.num, [node.this, *node.expressions]))})", NUM, node
            )
        if t is exp.Is:
            self.args_ok(node, {"this", "expression"})
            if type(node.expression) is not exp.Null:
                self.fail(f"{_short(node)}: only IS NULL and IS NOT NULL are allowed")
            return _Piece(f"({self.r(node.this).sql} IS NULL)", BOOL, node)
        if t is exp.Between:
            self.args_ok(node, {"this", "low", "high"})
            x, lo, hi = self.num(node.this), self.num(node.args["low"]), self.num(node.args["high"])
            return _Piece(f"({x} BETWEEN {lo} AND {hi})", BOOL, node)
        if t is exp.In:
            self.args_ok(node, {"this", "expressions"})
            lhs = self.r(node.this)
            items = [self.compare(lhs, self.r(e), "=")[1] for e in node.expressions]
            return _Piece(f"({lhs.sql} IN ({', '.join(items)}))", BOOL, node)
        if isinstance(node, exp.Cast) and t is exp.Cast:
            self.args_ok(node, {"this", "to"})
            if node.to.this != exp.DataType.Type.DOUBLE:
                self.fail(f"cast to {node.to.sql('duckdb')} is not allowed (only DOUBLE)")
            return _Piece(f"CAST({self.num(node.this)} AS DOUBLE)", NUM, node)
        if t is exp.Case or t is exp.If:
            return self.case(node)
        return self.binary(node)

    def binary(self, node: exp.Expression) -> _Piece:
        t = type(node)
        if t in _ARITH or t is exp.Pow or t is exp.Log:
            self.args_ok(node, {"this", "expression"})
        if t in _ARITH or t is exp.Pow:
            a, b = self.num(node.this), self.num(node.expression)
            return _Piece(f"power({a}, {b})" if t is exp.Pow else f"({a} {_ARITH[t]} {b})", NUM, node)
        if t in _COMPARE or t is exp.And or t is exp.Or:
            self.args_ok(node, {"this", "expression"})
            op = _COMPARE.get(t) or t.__name__.upper()
            if t in _COMPARE:
                a, b = self.compare(self.r(node.this), self.r(node.expression), op)
            else:
                a, b = self.cond(node.this), self.cond(node.expression)
            return _Piece(f"({a} {op} {b})", BOOL, node)
        if t is exp.Log:  # log10(x) and log2(x) arrive as log(10, x) and log(2, x)
            if node.expression is None:
                self.fail(
                    "log(x) is ambiguous (base 10 in DuckDB, base e elsewhere): "
                    "write ln(x), log10(x), log2(x) or log(base, x)"
                )
            base, x = self.num(node.this), self.num(node.expression)
            # DuckDB's log(2, x) is ln(x) / ln(2), which can differ from log2(x) in the last bit
            named = {"CAST(10.0 AS DOUBLE)": "log10", "CAST(2.0 AS DOUBLE)": "log2"}.get(base)
            return _Piece(f"{named}({x})" if named else f"log({base}, {x})", NUM, node)
        if t is exp.Round:
            self.args_ok(node, {"this", "decimals"})
            digits = node.args.get("decimals")
            if digits is None:
                return _Piece(f"round({self.num(node.this)})", NUM, node)
            value = digits.this if type(digits) is exp.Neg else digits
            if type(value) is not exp.Literal or value.is_string or not value.this.isdigit():
                self.fail(f"{_short(node)}: round's digits must be a whole number")
            n = -int(value.this) if value is not digits else int(value.this)
            return _Piece(f"round({self.num(node.this)}, {n})", NUM, node)
        self.refuse(node)

    def refuse(self, node: exp.Expression) -> NoReturn:
        t, what = type(node), _short(node)
        if t in _OPERATORS:
            self.fail(f"operator {_OPERATORS[t]} is not allowed")
        if isinstance(node, exp.Window):
            self.fail("window functions (OVER) are not allowed")
        if isinstance(node, exp.Placeholder):
            self.fail(f"parameter {what} is not allowed")
        if isinstance(node, exp.Star | exp.Columns):
            self.fail("* is not allowed")
        if isinstance(node, exp.Array | exp.Struct | exp.Tuple):
            self.fail(f"lists, structs and tuples are not allowed ({what})")
        if isinstance(node, exp.Func):
            name = node.name.lower() if t is exp.Anonymous else node.sql_name().lower()
            if isinstance(node, exp.AggFunc):
                self.fail(f"aggregate function {name} is not allowed")
            if name in ALLOWED_FUNCTIONS:
                self.fail(f"{what}: this form of {name} is not allowed")
            self.fail(f"function {name} is not allowed (allowed: {', '.join(ALLOWED_FUNCTIONS)})")
        self.fail(f"{what} ({t.__name__}) is not allowed")

    def case(self, node: exp.Expression) -> _Piece:
        if type(node) is exp.If:  # if(c, a, b)
            self.args_ok(node, {"this", "true", "false"})
            pairs, default, subject = [(node.this, node.args["true"])], node.args.get("false"), None
        else:
            self.args_ok(node, {"this", "ifs", "default"})
            pairs = [(i.this, i.args["true"]) for i in node.args["ifs"]]
            default = node.args.get("default")
            subject = self.r(node.this) if node.this is not None else None
        if default is None:
            self.fail(f"{_short(node)}: add an ELSE branch (a confidence cannot be NULL)")
        whens = []
        for test, value in pairs:
            if subject is not None:  # CASE x WHEN v ... is printed as CASE WHEN (x = v) ...
                test_sql = "({} = {})".format(*self.compare(subject, self.r(test), "="))
            else:
                test_sql = self.cond(test)
            whens.append(f"WHEN {test_sql} THEN {self.num(value)}")
        return _Piece(f"CASE {' '.join(whens)} ELSE {self.num(default)} END", NUM, node)

    def compare(self, a: _Piece, b: _Piece, op: str) -> tuple[str, str]:
        if a.kind == b.kind == NUM or (a.kind == b.kind == BOOL and op in ("=", "<>")):
            return a.sql, b.sql
        if a.kind == b.kind == TEXT and a.column != b.column and op in ("=", "<>"):
            return a.sql, b.sql
        if TEXT in (a.kind, b.kind):
            self.fail(
                f"{_short(a.node)} {op} {_short(b.node)}: text can only be compared with =, "
                "<> or IN between a text signal and quoted literals"
            )
        self.fail(f"cannot compare {a.kind} {_short(a.node)} with {b.kind} {_short(b.node)}")

    def column(self, node: exp.Column) -> _Piece:
        if isinstance(node.this, exp.Star):
            self.fail("* is not allowed")
        parts = [p.name for p in node.parts]
        if len(parts) > 2 or (len(parts) == 2 and parts[0].lower() != "s"):
            self.fail(f"column {'.'.join(parts)} names another table; only item_signals (s) is read")
        self.args_ok(node, {"this", "table"})
        col = self.lookup.get(node.name.lower())
        if col is None and self.unknown is not None:
            self.fail(f"column {node.name} {self.unknown}")
        if col is None:
            near = difflib.get_close_matches(node.name.lower(), list(self.columns), n=3)
            hint = f"did you mean {' or '.join(near)}?" if near else f"signals: {', '.join(self.columns)}"
            self.fail(f"column {node.name} is not a signal column of item_signals ({hint})")
        duck = self.columns[col].upper()
        self.read[col] = None
        if duck in ("DOUBLE", "BOOLEAN", "VARCHAR"):
            return _Piece(f"s.{col}", {"DOUBLE": NUM, "BOOLEAN": BOOL}.get(duck, TEXT), node, True)
        if duck in _INTS or duck.startswith("DECIMAL"):
            return _Piece(f"CAST(s.{col} AS DOUBLE)", NUM, node, True)
        self.fail(f"column {col} is {duck}; only numeric, BOOLEAN and VARCHAR signals can be read")

    def literal(self, node: exp.Literal) -> _Piece:
        if node.is_string:
            return _Piece("'" + node.this.replace("'", "''") + "'", TEXT, node)
        try:
            value = float(node.this)
        except ValueError:
            self.fail(f"number {node.this} is not valid")
        if not math.isfinite(value):
            self.fail(f"number {node.this} is out of range")
        return _Piece(f"CAST({value!r} AS DOUBLE)", NUM, node)
