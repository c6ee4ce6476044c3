"""User-defined confidence functions (`--confidence 'sql:EXPR'`, named ones stored by the user).

An expression over the typed signal columns of `item_signals AS s`, checked against an allow-list
(riskcov.scoring.user_csf_sql) and printed again from its parse tree, so the user's text never reaches
DuckDB: only column names taken from `columns`, numbers re-printed as CAST(<repr> AS DOUBLE)
(plateaus are decided by exact float equality, and DuckDB would read 0.4 as DECIMAL), escaped text
literals and fixed keywords.

Allowed: signal columns (bare or as s.col), numbers, + - * / ^ (** and pow/power), comparisons,
AND/OR/NOT, IS [NOT] NULL, BETWEEN, IN, CASE (with ELSE), if(c, a, b), CAST(x AS DOUBLE) and the
functions in user_csf_sql.ALLOWED_FUNCTIONS. BIGINT/INTEGER/FLOAT/DECIMAL columns are read as
CAST(s.c AS DOUBLE), so all arithmetic is IEEE double; BOOLEAN columns are conditions; VARCHAR
columns may only be compared (=, <>, IN) with quoted literals; list and JSON columns are refused.
The result must be a number, not a condition. `//` is refused (on doubles DuckDB's `//` divides
exactly as `/` does): write floor(a / b). One-argument log is refused (base 10 in DuckDB, base e in
many languages): write ln, log10, log2 or log(b, x); log(10, x) and log(2, x) print as log10, log2.
A sigmoid is 1 / (1 + exp(-x)): DuckDB's exp overflows to inf, never to an error.

Defence in depth: `deny_external_access` turns off DuckDB's file, network and extension access
before such SQL runs (one-way, see there).

>>> compile_expression("0.5 * token_msp + 1", {"token_msp": "DOUBLE"}).sql
'((CAST(0.5 AS DOUBLE) * s.token_msp) + CAST(1.0 AS DOUBLE))'
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import NoReturn

import duckdb
import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError

from riskcov.errors import UsageError
from riskcov.scoring.csf import has_signal
from riskcov.scoring.user_csf_sql import render, show

MAX_CHARS, MAX_TOKENS, MAX_DEPTH = 2000, 400, 40
STATEMENT = "statements are not allowed: write one expression"

_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")
# a per-sample score column's CSF name that SQL reads unquoted (s.<name>)
_SAMPLE_COLUMN = re.compile(r"[a-z_][a-z0-9_]*")
# keys of a row and the raw key list: not signals a confidence may read
_NOT_SIGNALS = ("experiment_id", "participant_id", "item_index", "signal_keys")
_NOT_SCORES = ("sample_index", "sample_id")  # nor of a sample's row
# what a name a per-sample CSF reads must be (the keys above are not)
_NOT_A_SCORE = (
    "is not a score column: a per-sample CSF reads score columns by CSF name (msp for confidence_msp)"
    " and prob"
)


@dataclass(frozen=True)
class CompiledExpression:
    """A checked expression: `sql` over `item_signals AS s`, the `columns` it reads, its `text`."""

    text: str
    sql: str
    columns: tuple[str, ...]

    def problem_sql(self) -> str:
        """SQL naming why an item has no confidence (NULL when fine), like csf.Csf.problem_sql.

        Every column read is required (a missing key is an error); a null signal is an error only
        when it makes the result null: coalesce(x, 0) is the user's explicit null policy.
        """
        whens = [f"WHEN NOT {has_signal(c)} THEN '{c} is missing'" for c in self.columns]
        nulls = ", ".join(f"CASE WHEN s.{c} IS NULL THEN '{c}' END" for c in self.columns)
        # only a null signal can make the result null: NULL literals are refused and CASE needs ELSE
        # an expression of no column (a constant, 0/0) has no signal to name
        null = f"'the confidence is null (null signal: ' || concat_ws(', ', {nulls}) || ')'"
        whens.append(
            f"WHEN ({self.sql}) IS NULL THEN {null if self.columns else repr('the confidence is null')}"
        )
        whens.append(
            f"WHEN NOT isfinite({self.sql}) THEN 'the confidence is ' || "
            f"CAST({self.sql} AS VARCHAR) || ', not a finite number'"
        )
        return f"CASE {' '.join(whens)} END"


def compile_expression(
    text: str, columns: Mapping[str, str], *, label: str | None = None
) -> CompiledExpression:
    """Check `text` against the allow-list and print it as canonical DuckDB SQL; UsageError if not.

    `columns` maps each signal column to its DuckDB type; `label` starts messages (`sql:<text>`).

    >>> c = compile_expression("if(evidence_source = 'llm', 1, llm_evidence_count)",
    ...                        {"evidence_source": "VARCHAR", "llm_evidence_count": "BIGINT"})
    >>> c.columns
    ('evidence_source', 'llm_evidence_count')
    >>> print(c.sql.replace(" ELSE", "\\nELSE"))
    CASE WHEN (s.evidence_source = 'llm') THEN CAST(1.0 AS DOUBLE)
    ELSE CAST(s.llm_evidence_count AS DOUBLE) END
    """
    prefix = label if label is not None else f"sql:{show(text)}"
    sql, read = render(_parse(text, prefix), columns, prefix)
    return CompiledExpression(text, sql, read)


def compile_for_samples(text: str, *, label: str | None = None) -> CompiledExpression:
    """`text` as a CSF of per-sample runs: the same allow-list, over a sample's score columns by
    CSF name (`confidence`, `msp`, ...) and its `prob`, all read as DOUBLE from the pivoted row
    `s` (riskcov.scoring.sample_expressions). Which names exist is up to each run.

    >>> c = compile_for_samples("confidence * confidence + 0.1 * prob")
    >>> c.columns, c.sql
    (('confidence', 'prob'), '((s.confidence * s.confidence) + (CAST(0.1 AS DOUBLE) * s.prob))')
    """
    prefix = label if label is not None else f"sql:{show(text)}"
    root = _parse(text, prefix)
    names = {c.name.lower() for c in root.find_all(exp.Column)} - {*_NOT_SIGNALS, *_NOT_SCORES}
    columns = {n: "DOUBLE" for n in sorted(names) if _SAMPLE_COLUMN.fullmatch(n)}
    sql, read = render(root, columns, prefix, _NOT_A_SCORE)
    return CompiledExpression(text, sql, read)


def signal_columns(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Each signal column of `item_signals` and its DuckDB type: the `columns` to compile against.

    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE item_signals (item_index SMALLINT, token_msp DOUBLE)")
    >>> signal_columns(con)
    {'token_msp': 'DOUBLE'}
    """
    rows = con.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'item_signals'"
        " AND schema_name = 'main' AND NOT internal ORDER BY column_index"
    ).fetchall()
    return {str(name): str(kind) for name, kind in rows if name not in _NOT_SIGNALS}


def name_ok(name: str, builtin: Collection[str]) -> None:
    """Refuse a stored CSF name that is malformed or clashes with a built-in CSF or a selector.

    >>> name_ok("my_csf", ["llm", "token_msp"])
    >>> name_ok("llm", ["llm", "token_msp"])
    Traceback (most recent call last):
    riskcov.errors.UsageError: csf name llm: llm is already a built-in confidence selector
    """
    if not _NAME.match(name):
        shown = ascii(name if len(name) <= 64 else name[:61] + "...")  # escaped: one line
        raise UsageError(f"csf name {shown}: use 1 to 64 characters a-z, 0-9 and _, starting with a letter")
    if name in builtin or name in ("default", "all"):
        raise UsageError(f"csf name {name}: {name} is already a built-in confidence selector")


def deny_external_access(con: duckdb.DuckDBPyConnection) -> None:
    """Turn off DuckDB's access to files, network and extensions beyond the database's own files.

    One-way: DuckDB refuses to turn it on again while the database instance lives, and every
    connection to the same file in this process shares the instance. What keeps working (tested on
    DuckDB 2.0): reads and writes of the warehouse file, its WAL and CHECKPOINT, TEMP tables and
    spilling to the database's .tmp directory, `register()`ed numpy arrays, SET threads. What stops:
    read_csv/read_text/ATTACH/COPY on other paths, INSTALL/LOAD, scans of Python variables by name.
    (`SET disabled_filesystems = 'LocalFileSystem'` is reversible but makes the next CHECKPOINT
    invalidate the database, so it is not used.) Call it after the last file read a command needs.

    >>> con = duckdb.connect()
    >>> deny_external_access(con)
    >>> con.execute("SELECT current_setting('enable_external_access')").fetchall()
    [(False,)]
    """
    con.execute("SET enable_external_access = false")


def _parse(text: str, prefix: str) -> exp.Expression:
    """One expression's tree, after the checks the tree cannot show (comments, `;`, characters)."""

    def fail(what: str) -> NoReturn:
        raise UsageError(f"{prefix}: {what}")

    if not text.strip():
        fail("the expression is empty")
    if len(text) > MAX_CHARS:
        fail(f"the expression is longer than {MAX_CHARS} characters")
    for pos, ch in enumerate(text, 1):
        # look-alike letters and invisible characters would make the text mean something else
        if not (" " <= ch <= "~" or ch in "\t\n\r"):
            fail(f"character {ch!a} (U+{ord(ch):04X}) at position {pos} is not allowed: write plain ASCII")
    try:
        tokens = sqlglot.tokenize(text, read="duckdb")
    except TokenError:
        fail("it does not parse (an unterminated quote or comment?)")
    if not tokens or any(t.comments for t in tokens):  # a lone comment leaves no token at all
        fail("comments are not allowed")
    if len(tokens) > MAX_TOKENS:
        fail(f"the expression has more than {MAX_TOKENS} tokens")
    if any(t.token_type.name == "SEMICOLON" for t in tokens):
        fail("';' is not allowed: write one expression, not statements")
    duck = Dialect.get_or_raise("duckdb")
    first = tokens[0].token_type
    # what sqlglot would parse as a statement (COPY, ATTACH, PRAGMA, SET, LOAD, CALL, ...)
    if first in duck.parser_class.STATEMENT_PARSERS or first in duck.tokenizer_class.COMMANDS:
        fail(f"{tokens[0].text.upper()} {STATEMENT}")
    logger = logging.getLogger("sqlglot")
    quiet, logger.disabled = logger.disabled, True  # it warns on stderr when it falls back to a Command
    try:
        root = sqlglot.parse_one(text, read=duck)
    except ParseError as exc:
        first_error = exc.errors[0] if exc.errors else {}
        why = re.sub(r"<class 'sqlglot\.[\w.]*\.(\w+)'>", r"\1", str(first_error.get("description", exc)))
        fail(f"it does not parse: {why.splitlines()[0]} (column {first_error.get('col', '?')})")
    except RecursionError:
        fail(f"the expression nests deeper than {MAX_DEPTH} levels")
    finally:
        logger.disabled = quiet
    if isinstance(root, exp.Command):  # e.g. `if x then 1` read as a T-SQL IF statement
        fail(f"{tokens[0].text.upper()} {STATEMENT}")
    if any(node.depth > MAX_DEPTH for node in root.walk()):
        fail(f"the expression nests deeper than {MAX_DEPTH} levels")
    if root.find(exp.Query, exp.Subquery, exp.Values) is not None:
        fail("subqueries are not allowed")
    if isinstance(root, exp.Alias):
        fail(f"aliases are not allowed (read as {show(root.sql('duckdb'), 40)})")
    if not isinstance(root, exp.Expression):
        fail(f"{show(root.sql('duckdb'), 40)} is not allowed")
    return root
