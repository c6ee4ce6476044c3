"""User CSFs as SQL: the allow-list refuses hostile text with one exact line; what it accepts is
printed as canonical SQL that DuckDB evaluates to the expected doubles; external access can be cut."""

from __future__ import annotations

import math
import re
from pathlib import Path

import duckdb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from riskcov.errors import UsageError
from riskcov.scoring.user_csf import (
    CompiledExpression,
    compile_expression,
    deny_external_access,
    name_ok,
    signal_columns,
)

# the typed signal columns of migrations/0001_core.sql's item_signals (checked below)
COLUMNS = {
    "llm_evidence_count": "BIGINT", "keyword_evidence_count": "BIGINT", "evidence_source": "VARCHAR",
    "retrieval_reference_count": "BIGINT", "retrieval_similarity_mean": "DOUBLE",
    "retrieval_similarity_max": "DOUBLE", "verbalized_confidence": "DOUBLE", "token_msp": "DOUBLE",
    "token_pe": "DOUBLE", "token_energy": "DOUBLE", "consistency_modal_confidence": "DOUBLE",
    "consistency_score_std": "DOUBLE", "consistency_na_rate": "DOUBLE",
    "consistency_samples": "DOUBLE[]", "inference_used": "BOOLEAN", "inference_type": "VARCHAR",
    "inference_marker": "VARCHAR", "extra_signals": "JSON",
}  # fmt: skip
ALL = ("abs, ceil, coalesce, exp, floor, greatest, if, isfinite, isinf, isnan, least, ln, log, log10, log2,"
       " pow, power, round, sign, sqrt")  # fmt: skip
EVERY = ", ".join(COLUMNS)
BOOL_HINT = "is a condition, not a number (write CASE WHEN ... THEN 1 ELSE 0 END)"
TEXT_HINT = "text can only be compared with =, <> or IN between a text signal and quoted literals"
STATEMENT = "statements are not allowed: write one expression"
RULE = "use 1 to 64 characters a-z, 0-9 and _, starting with a letter"

HOSTILE = [
    ("", "sql:: the expression is empty"),
    ("   \n\t", "sql:: the expression is empty"),
    ("token_msp/*x*/", "sql:token_msp/*x*/: comments are not allowed"),
    ("token_msp -- a comment", "sql:token_msp -- a comment: comments are not allowed"),
    ("-- only a comment", "sql:-- only a comment: comments are not allowed"),
    ("token_msp--1", "sql:token_msp--1: comments are not allowed"),  # not token_msp - (-1)
    ("token_msp --\n; DROP TABLE runs", "sql:token_msp -- ; DROP TABLE runs: comments are not allowed"),
    ("token_msp; DROP TABLE runs",
     "sql:token_msp; DROP TABLE runs: ';' is not allowed: write one expression, not statements"),
    ("(SELECT 1)", "sql:(SELECT 1): subqueries are not allowed"),
    ("SELECT token_msp FROM item_signals",
     "sql:SELECT token_msp FROM item_signals: subqueries are not allowed"),
    ("token_msp + (SELECT max(token_msp) FROM item_signals)",
     "sql:token_msp + (SELECT max(token_msp) FROM item_signals): subqueries are not allowed"),
    ("token_msp IN (SELECT 1)", "sql:token_msp IN (SELECT 1): subqueries are not allowed"),
    ("EXISTS (SELECT 1)", "sql:EXISTS (SELECT 1): subqueries are not allowed"),
    ("read_csv('/etc/passwd')",
     f"sql:read_csv('/etc/passwd'): function read_csv is not allowed (allowed: {ALL})"),
    ("getenv('HOME')", f"sql:getenv('HOME'): function getenv is not allowed (allowed: {ALL})"),
    ("current_setting('threads')",
     f"sql:current_setting('threads'): function current_setting is not allowed (allowed: {ALL})"),
    ("nextval('s')", f"sql:nextval('s'): function nextval is not allowed (allowed: {ALL})"),
    ("current_date", f"sql:current_date: function current_date is not allowed (allowed: {ALL})"),
    ("TRY_CAST(token_msp AS DOUBLE)",
     f"sql:TRY_CAST(token_msp AS DOUBLE): function try_cast is not allowed (allowed: {ALL})"),
    ('"token_msp; DROP TABLE runs"', 'sql:"token_msp; DROP TABLE runs": column token_msp; DROP TABLE runs'
     f" is not a signal column of item_signals (signals: {EVERY})"),
    ("tokn_msp", "sql:tokn_msp: column tokn_msp is not a signal column of item_signals"
     " (did you mean token_msp or token_pe?)"),
    ("runs.run_id", "sql:runs.run_id: column runs.run_id names another table; only item_signals (s) is read"),
    ("main.runs.x", "sql:main.runs.x: column main.runs.x names another table; only item_signals (s) is read"),
    ("s.s.token_msp",
     "sql:s.s.token_msp: column s.s.token_msp names another table; only item_signals (s) is read"),
    ("token_msp::VARCHAR", "sql:token_msp::VARCHAR: cast to TEXT is not allowed (only DOUBLE)"),
    ("CAST(token_msp AS BIGINT)",
     "sql:CAST(token_msp AS BIGINT): cast to BIGINT is not allowed (only DOUBLE)"),
    ("DATE '2020-01-01'", "sql:DATE '2020-01-01': cast to DATE is not allowed (only DOUBLE)"),
    ("CAST(inference_used AS DOUBLE)", f"sql:CAST(inference_used AS DOUBLE): inference_used {BOOL_HINT}"),
    ("list_value(1)", "sql:list_value(1): lists, structs and tuples are not allowed ([1])"),
    ("[1, 2]", "sql:[1, 2]: lists, structs and tuples are not allowed ([1, 2])"),
    ("{'a': 1}", "sql:{'a': 1}: lists, structs and tuples are not allowed ({'a': 1})"),
    ("x -> x", "sql:x -> x: operator -> is not allowed"),
    ("list_transform([1], x -> x + 1)",
     f"sql:list_transform([1], x -> x + 1): function transform is not allowed (allowed: {ALL})"),
    ("sum(token_msp)", "sql:sum(token_msp): aggregate function sum is not allowed"),
    ("row_number() OVER ()", "sql:row_number() OVER (): window functions (OVER) are not allowed"),
    ("$1", "sql:$1: parameter $1 is not allowed"),
    ("?", "sql:?: parameter ? is not allowed"),
    ("$name", "sql:$name: parameter $name is not allowed"),
    ("*", "sql:*: * is not allowed"),
    ("COLUMNS(*)", "sql:COLUMNS(*): * is not allowed"),
    ("COPY runs TO '/tmp/x.csv'", f"sql:COPY runs TO '/tmp/x.csv': COPY {STATEMENT}"),
    ("ATTACH '/tmp/x.duckdb' AS x", f"sql:ATTACH '/tmp/x.duckdb' AS x: ATTACH {STATEMENT}"),
    ("PRAGMA version", f"sql:PRAGMA version: PRAGMA {STATEMENT}"),
    ("SET threads = 1", f"sql:SET threads = 1: SET {STATEMENT}"),
    ("CALL pragma_version()", f"sql:CALL pragma_version(): CALL {STATEMENT}"),
    ("INSTALL httpfs", f"sql:INSTALL httpfs: INSTALL {STATEMENT}"),
    ("LOAD httpfs", f"sql:LOAD httpfs: LOAD {STATEMENT}"),
    ("if token_msp > 1 then 1 else 0 end", f"sql:if token_msp > 1 then 1 else 0 end: IF {STATEMENT}"),
    ("t\u043eken_msp",  # a Cyrillic o
     "sql:t\\u043eken_msp: character '\\u043e' (U+043E) at position 2 is not allowed: write plain ASCII"),
    ("token_msp\uff1b DROP TABLE runs", "sql:token_msp\\uff1b DROP TABLE runs: character '\\uff1b'"
     " (U+FF1B) at position 10 is not allowed: write plain ASCII"),
    ("token_msp\u200b", "sql:token_msp\\u200b: character '\\u200b' (U+200B) at position 10 is not allowed:"
     " write plain ASCII"),
    ("token_msp\x00", "sql:token_msp\\x00: character '\\x00' (U+0000) at position 10 is not allowed:"
     " write plain ASCII"),
    ("(" * 50 + "1" + ")" * 50, "sql:" + "(" * 50 + "1" + ")" * 6 + "...: the expression nests deeper than"
     " 40 levels"),
    ("- " * 300 + "token_msp", "sql:" + "- " * 28 + "-...: the expression nests deeper than 40 levels"),
    ("token_msp + " * 200 + "1", "sql:" + ("token_msp + " * 5)[:57] + "...: the expression is longer than"
     " 2000 characters"),
    ("1+" * 250 + "1", "sql:" + "1+" * 28 + "1...: the expression has more than 400 tokens"),
    ("token_msp > 0.5", f"sql:token_msp > 0.5: token_msp > 0.5 {BOOL_HINT}"),
    ("inference_used + 1", f"sql:inference_used + 1: inference_used {BOOL_HINT}"),
    ("token_msp AND inference_used", "sql:token_msp AND inference_used: token_msp is a number, not a"
     " condition (compare it, e.g. token_msp > 0.5)"),
    ("evidence_source", f"sql:evidence_source: evidence_source is text, not a number; {TEXT_HINT}"),
    ("'abc'", f"sql:'abc': 'abc' is text, not a number; {TEXT_HINT}"),
    ("coalesce(evidence_source, 'x')",
     f"sql:coalesce(evidence_source, 'x'): evidence_source is text, not a number; {TEXT_HINT}"),
    ("evidence_source > 'a'", f"sql:evidence_source > 'a': evidence_source > 'a': {TEXT_HINT}"),
    ("evidence_source = inference_type",
     f"sql:evidence_source = inference_type: evidence_source = inference_type: {TEXT_HINT}"),
    ("CASE WHEN token_msp > 0.5 THEN 1 END", "sql:CASE WHEN token_msp > 0.5 THEN 1 END: CASE WHEN"
     " token_msp > 0.5 THEN 1 END: add an ELSE branch (a confidence cannot be NULL)"),
    ("if(inference_used, 1)", "sql:if(inference_used, 1): CASE WHEN inference_used THEN 1 END: add an"
     " ELSE branch (a confidence cannot be NULL)"),
    ("NULL", "sql:NULL: NULL is not allowed (test x IS NULL, or replace a null with coalesce(x, 0))"),
    ("coalesce(token_msp, NULL)", "sql:coalesce(token_msp, NULL): NULL is not allowed (test x IS NULL,"
     " or replace a null with coalesce(x, 0))"),
    ("token_msp // 2", "sql:token_msp // 2: operator // (write floor(a / b)) is not allowed"),
    ("token_msp % 2", "sql:token_msp % 2: operator % is not allowed"),
    ("evidence_source || 'x'", "sql:evidence_source || 'x': operator || is not allowed"),
    ("evidence_source LIKE 'l%'", "sql:evidence_source LIKE 'l%': operator LIKE is not allowed"),
    ("token_msp IS NOT DISTINCT FROM 1",
     "sql:token_msp IS NOT DISTINCT FROM 1: operator IS NOT DISTINCT FROM is not allowed"),
    ("token_msp[1]", "sql:token_msp[1]: operator [...] is not allowed"),
    ("log(token_msp)", "sql:log(token_msp): log(x) is ambiguous (base 10 in DuckDB, base e elsewhere):"
     " write ln(x), log10(x), log2(x) or log(base, x)"),
    ("consistency_samples", "sql:consistency_samples: column consistency_samples is DOUBLE[]; only"
     " numeric, BOOLEAN and VARCHAR signals can be read"),
    ("extra_signals", "sql:extra_signals: column extra_signals is JSON; only numeric, BOOLEAN and"
     " VARCHAR signals can be read"),
    ("1e999", "sql:1e999: number 1e999 is out of range"),
    ("0x10", "sql:0x10: aliases are not allowed (read as 0 AS x10)"),
    ("token_msp token_pe", "sql:token_msp token_pe: aliases are not allowed (read as token_msp AS token_pe)"),
    ("token_msp IS TRUE",
     "sql:token_msp IS TRUE: token_msp IS TRUE: only IS NULL and IS NOT NULL are allowed"),
    ("round(token_msp, 1.5)",
     "sql:round(token_msp, 1.5): ROUND(token_msp, 1.5): round's digits must be a whole number"),
    ("floor(token_msp, 2)", "sql:floor(token_msp, 2): FLOOR: decimals is not allowed"),
    ("token_msp BETWEEN SYMMETRIC 1 AND 2",
     "sql:token_msp BETWEEN SYMMETRIC 1 AND 2: BETWEEN: symmetric is not allowed"),
    ("isfinite(token_msp, 1)",
     "sql:isfinite(token_msp, 1): ISFINITE(token_msp, 1): this form of isfinite is not allowed"),
    ("E'\\x41'", "sql:E'\\x41': e'A' (ByteString) is not allowed"),
    ("$$raw$$", "sql:$$raw$$: 'raw' (RawString) is not allowed"),
    ("INTERVAL 1 DAY", "sql:INTERVAL 1 DAY: INTERVAL '1' DAY (Interval) is not allowed"),
    ("'unterminated", "sql:'unterminated: it does not parse (an unterminated quote or comment?)"),
    ("token_msp +",
     "sql:token_msp +: it does not parse: Required keyword: 'expression' missing for Add (column 11)"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message"), HOSTILE, ids=[f"h{i}" for i in range(len(HOSTILE))])
def test_hostile_expressions_are_refused_with_one_exact_line(text, message, caplog):
    with pytest.raises(UsageError) as err:
        compile_expression(text, COLUMNS)
    assert str(err.value) == message
    assert "\n" not in str(err.value)
    assert not caplog.records  # sqlglot warned nothing on the side


def test_a_column_name_that_is_not_an_identifier_is_the_callers_error():
    with pytest.raises(
        ValueError, match=r"^signal column name 'x; DROP TABLE runs' is not a plain identifier$"
    ):
        compile_expression("1", {"token_msp": "DOUBLE", "x; DROP TABLE runs": "DOUBLE"})


def test_a_label_replaces_the_sql_prefix():
    with pytest.raises(UsageError, match=r"^csf add mine: function getenv is not allowed \(allowed: "):
        compile_expression("getenv('HOME')", COLUMNS, label="csf add mine")


@pytest.fixture(scope="module")
def con():
    c = duckdb.connect()
    cols = ", ".join(f"{name} {kind}" for name, kind in COLUMNS.items())
    c.execute(f"CREATE TABLE item_signals (item_index SMALLINT, signal_keys VARCHAR[], {cols})")
    keys = list(COLUMNS)
    c.executemany(
        "INSERT INTO item_signals (item_index, signal_keys, llm_evidence_count, evidence_source,"
        " retrieval_similarity_mean, token_msp, token_pe, inference_used) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(0, keys, 3, "llm", 0.5, 0.9, 0.25, True), (1, keys, 1, "both", None, 0.2, 3.0, False),
         (2, keys, 0, "keyword", 0.8, 0.5, 1.0, None)])  # fmt: skip
    yield c
    c.close()


def evaluate(con, sql: str) -> list[object]:
    rows = con.execute(f"SELECT {sql} FROM item_signals AS s ORDER BY s.item_index").fetchall()
    return [r[0] for r in rows]


MSP, PE = [0.9, 0.2, 0.5], [0.25, 3.0, 1.0]
ACCEPTED = [
    ("0.7 * token_msp + 0.3 * coalesce(retrieval_similarity_mean, 0)",
     [0.7 * 0.9 + 0.3 * 0.5, 0.7 * 0.2 + 0.3 * 0.0, 0.7 * 0.5 + 0.3 * 0.8]),
    ("llm_evidence_count / 2", [1.5, 0.5, 0.0]),
    ("coalesce(llm_evidence_count, 0)", [3.0, 1.0, 0.0]),
    ("1", [1.0, 1.0, 1.0]),
    ("0.1 + 0.2", [0.1 + 0.2] * 3),  # doubles; DuckDB's DECIMAL literals would give exactly 0.3
    ("1 / (1 + exp(-(token_msp - 0.5) * 4))", [1 / (1 + math.exp(-(m - 0.5) * 4)) for m in MSP]),
    ("CASE evidence_source WHEN 'llm' THEN 1 WHEN 'both' THEN 0.5 ELSE 0 END", [1.0, 0.5, 0.0]),
    ("if(inference_used, token_msp, 1 - token_msp)", [0.9, 1 - 0.2, 1 - 0.5]),  # null -> ELSE
    ("greatest(least(token_pe, 1), 0.5)", [0.5, 1.0, 1.0]),
    ("log10(token_pe * 4)", [0.0, math.log10(12.0), math.log10(4.0)]),
    ("log(2, token_pe * 4) + ln(token_pe)", [math.log2(p * 4) + math.log(p) for p in PE]),
    ("sqrt(token_pe) ^ 2 + pow(2, llm_evidence_count)",
     [math.sqrt(p) ** 2 + e for p, e in zip(PE, [8, 2, 1], strict=True)]),
    ("-token_pe ^ 2", [0.0625, 9.0, 1.0]),  # unary minus binds tighter, as in DuckDB
    ("round(token_msp * 3) / 3 + round(token_pe, 1) + round(token_pe * 40, -1)",
     [1.0 + 0.3 + 10.0, 1 / 3 + 3.0 + 120.0, 2 / 3 + 1.0 + 40.0]),  # DuckDB rounds half away from 0
    ("abs(token_msp - 0.5) + sign(token_msp - 0.5)", [abs(m - 0.5) + (m > 0.5) - (m < 0.5) for m in MSP]),
    ("CASE WHEN retrieval_similarity_mean IS NULL THEN -1"
     " WHEN retrieval_similarity_mean BETWEEN 0.4 AND 0.6 THEN 1 ELSE 0 END", [1.0, -1.0, 0.0]),
    ("CASE WHEN evidence_source IN ('llm', 'both') AND NOT inference_used THEN 1 ELSE 0 END",
     [0.0, 1.0, 0.0]),
    ('"TOKEN_MSP" + S.token_msp', [1.8, 0.4, 1.0]),
    ("floor(token_pe) + ceil(token_msp)", [1.0, 4.0, 2.0]),
    ("CASE WHEN isnan(token_msp) OR isinf(token_msp) OR NOT isfinite(token_msp) THEN 0 ELSE token_msp END",
     MSP),
    ("CAST(llm_evidence_count AS DOUBLE) / 3", [1.0, 1 / 3, 0.0]),
    ("CASE WHEN inference_used = TRUE THEN 1 ELSE 0 END", [1.0, 0.0, 0.0]),
    ("CASE WHEN evidence_source <> 'it''s' THEN 1 ELSE 0 END", [1.0, 1.0, 1.0]),
    ("@(token_msp - 1)", [1 - 0.9, 1 - 0.2, 0.5]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), ACCEPTED, ids=[f"a{i}" for i in range(len(ACCEPTED))])
def test_accepted_expressions_evaluate_to_exact_doubles(con, text, expected):
    compiled = compile_expression(text, COLUMNS)
    assert evaluate(con, compiled.sql) == expected
    assert set(evaluate(con, f"typeof({compiled.sql})")) == {"DOUBLE"}


@pytest.mark.parametrize(
    ("text", "sql", "columns"),
    [
        ("coalesce(llm_evidence_count, 0) / 3",
         "(coalesce(CAST(s.llm_evidence_count AS DOUBLE), CAST(0.0 AS DOUBLE)) / CAST(3.0 AS DOUBLE))",
         ("llm_evidence_count",)),
        ("log10(token_pe) + log2(s.token_msp) + log(3, token_pe)",
         "((log10(s.token_pe) + log2(s.token_msp)) + log(CAST(3.0 AS DOUBLE), s.token_pe))",
         ("token_pe", "token_msp")),
        ("2 ** 3 ^ 2", "power(power(CAST(2.0 AS DOUBLE), CAST(3.0 AS DOUBLE)), CAST(2.0 AS DOUBLE))", ()),
        ("((token_msp))", "s.token_msp", ("token_msp",)),
        ("CASE WHEN evidence_source = 'x''; DROP' OR inference_used IS NOT NULL THEN 1 ELSE 0 END",
         "CASE WHEN ((s.evidence_source = 'x''; DROP') OR (NOT (s.inference_used IS NULL)))"
         " THEN CAST(1.0 AS DOUBLE) ELSE CAST(0.0 AS DOUBLE) END", ("evidence_source", "inference_used")),
    ],
    ids=["int-column", "logs", "pow", "parens", "quote"],
)  # fmt: skip
def test_canonical_sql_and_columns_in_first_appearance_order(text, sql, columns):
    assert compile_expression(text, COLUMNS) == CompiledExpression(text, sql, columns)


@pytest.mark.parametrize(
    "text",
    ["-token_pe ^ 2", "2 ^ 3 ^ 2", "token_msp - token_pe - 1", "token_msp / token_pe / 2",
     "token_msp / token_pe * 2", "2 * token_pe ^ 2 + 1", "- - token_pe",
     "CASE WHEN NOT token_msp > 0.5 OR token_pe < 1 AND inference_used THEN 1 ELSE 0 END"],
)  # fmt: skip
def test_printed_sql_keeps_duckdbs_own_precedence(con, text):
    # literals here are exact in binary, so DuckDB's DECIMAL reading cannot differ from DOUBLE
    assert evaluate(con, compile_expression(text, COLUMNS).sql) == evaluate(con, text)


VOCAB = ["token_msp", "llm_evidence_count", "evidence_source", "inference_used", "consistency_samples",
         "s.token_msp", "runs.x", "0.4", "2", "1e3", "'llm'", "'", "(", ")", ",", "+", "-", "*", "/", "^",
         "//", "%", "=", "<", ">=", "<>", "AND", "OR", "NOT", "IS", "NULL", "TRUE", "IN", "BETWEEN",
         "CASE", "WHEN", "THEN", "ELSE", "END", "CAST", "AS", "DOUBLE", "VARCHAR", "::", "coalesce",
         "least", "exp", "ln", "log", "round", "if", "isnan", "getenv", "read_csv", "SELECT", "FROM", ";",
         "--", "/*", "*/", "$1", "?", "[", "]", "{", "}", "->", ":", "COPY", "ATTACH", "PRAGMA"]  # fmt: skip
PRINTED = {"s", *COLUMNS, "CAST", "AS", "DOUBLE", "CASE", "WHEN", "THEN", "ELSE", "END", "AND", "OR",
           "NOT", "IS", "NULL", "IN", "BETWEEN", "TRUE", "FALSE", "power", "log", "log10", "log2", "abs",
           "ceil", "coalesce", "exp", "floor", "greatest", "isfinite", "isinf", "isnan", "least", "ln",
           "round", "sign", "sqrt"}  # fmt: skip


# mostly allowed parts, so that many trees pass and their printed SQL gets run
GOOD_LEAVES = ["token_msp", "llm_evidence_count", "s.retrieval_similarity_mean", "0.4", "3"]
LEAVES = st.sampled_from(GOOD_LEAVES * 4 + ["evidence_source", "inference_used", "'llm'", "TRUE", "NULL"])
OPS = ["+", "-", "*", "/", "^"] * 3 + ["=", "<", "<>", "AND", "OR", "//", "%", "||", "->"]
FUNCTIONS = ["coalesce", "least", "greatest", "exp", "ln", "round", "abs"] * 2 + ["log", "isnan", "getenv"]


def _grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(inner, st.sampled_from(OPS), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(FUNCTIONS), st.lists(inner, min_size=1, max_size=2)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"
        ),
        st.tuples(inner, inner, inner).map(
            lambda t: f"CASE WHEN {t[0]} > {t[1]} THEN {t[1]} ELSE {t[2]} END"
        ),
        inner.map(lambda x: f"-{x}"),
        inner.map(lambda x: f"CASE WHEN {x} IS NOT NULL THEN 1 ELSE 0 END"),
        inner.map(lambda x: f"CAST({x} AS DOUBLE)"),
    )


SOUP = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=10).map(" ".join)


@settings(max_examples=examples(400), deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(st.one_of(SOUP, st.recursive(LEAVES, _grow, max_leaves=8)))
def test_any_text_is_refused_in_one_line_or_prints_closed_sql_that_runs(con, text):
    try:
        compiled = compile_expression(text, COLUMNS)
    except UsageError as exc:
        assert str(exc).startswith("sql:")
        assert "\n" not in str(exc)
        return
    # outside quoted literals, the printed SQL only holds words riskcov itself writes
    bare = re.sub(r"'(?:[^']|'')*'", "", compiled.sql)
    assert set(re.findall(r"[A-Za-z_]\w*", re.sub(r"\d+\.\d+(e[+-]?\d+)?", "", bare))) <= PRINTED
    assert set(evaluate(con, f"typeof({compiled.sql})")) == {"DOUBLE"}


def test_problem_sql_names_a_missing_key_a_null_result_and_a_non_finite_value():
    c = duckdb.connect()
    c.execute("CREATE TABLE item_signals (item_index INT, signal_keys VARCHAR[], token_msp DOUBLE,"
              " token_pe DOUBLE)")  # fmt: skip
    c.execute("INSERT INTO item_signals VALUES (0, ['token_msp'], 0.5, NULL), (1, NULL, NULL, NULL),"
              " (2, ['token_msp', 'token_pe'], NULL, 2.0), (3, ['token_msp', 'token_pe'], 1.0, 0.0),"
              " (4, ['token_msp', 'token_pe'], 0.6, 0.5),"
              " (5, ['token_pe', 'token_msp'], 0.6, NULL)")  # fmt: skip
    compiled = compile_expression(
        "token_msp / coalesce(token_pe, 1)", {"token_msp": "DOUBLE", "token_pe": "DOUBLE"}
    )
    assert evaluate(c, compiled.problem_sql()) == [
        "token_pe is missing",
        "token_msp is missing",  # no signals row at all (the evaluation's LEFT JOIN)
        "the confidence is null (null signal: token_msp)",
        "the confidence is inf, not a finite number",
        None,
        None,  # token_pe null but coalesced: the user's policy
    ]


def test_signal_columns_match_the_core_migration():
    migration = Path(__file__).resolve().parents[2] / "migrations" / "0001_core.sql"
    c = duckdb.connect()
    c.execute(migration.read_text())
    assert signal_columns(c) == COLUMNS
    assert list(signal_columns(c)) == list(COLUMNS)


@pytest.mark.parametrize("name", ["a", "my_csf", "x9_", "a" * 64])
def test_good_names(name):
    assert name_ok(name, ["llm", "token_msp"]) is None


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", f"csf name '': {RULE}"),
        ("1abc", f"csf name '1abc': {RULE}"),
        ("Mine", f"csf name 'Mine': {RULE}"),
        ("sql:x", f"csf name 'sql:x': {RULE}"),
        ("a" * 65, f"csf name '{'a' * 61}...': {RULE}"),
        ("a\nb", f"csf name 'a\\nb': {RULE}"),
        ("ok\n", f"csf name 'ok\\n': {RULE}"),
        ("llm", "csf name llm: llm is already a built-in confidence selector"),
        ("default", "csf name default: default is already a built-in confidence selector"),
        ("all", "csf name all: all is already a built-in confidence selector"),
    ],
)  # fmt: skip
def test_bad_names(name, message):
    with pytest.raises(UsageError) as err:
        name_ok(name, ["llm", "token_msp"])
    assert str(err.value) == message


def test_denied_external_access_keeps_the_warehouse_working(tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("a\n1\n")
    path = tmp_path / "w.duckdb"
    c = duckdb.connect(str(path))
    c.execute("CREATE TABLE item_signals (item_index INTEGER, token_msp DOUBLE)")
    assert c.execute(f"SELECT count(*) FROM read_text('{secret}')").fetchall() == [(1,)]
    deny_external_access(c)
    for sql in (f"SELECT * FROM read_text('{secret}')", f"COPY item_signals TO '{tmp_path / 'out.csv'}'",
                f"ATTACH '{tmp_path / 'other.duckdb'}' AS other"):  # fmt: skip
        with pytest.raises(duckdb.PermissionException, match="file system operations are disabled"):
            c.execute(sql)
    with pytest.raises(duckdb.InvalidInputException, match="Cannot enable external access"):
        c.execute("SET enable_external_access = true")  # one-way, as documented
    # the warehouse's own file, WAL, checkpoints, temp tables and registered arrays still work
    c.register("_rows", {"i": np.arange(3, dtype=np.int32), "m": np.array([0.9, 0.2, 0.5])})
    c.execute("INSERT INTO item_signals SELECT i, m FROM _rows")
    c.unregister("_rows")
    compiled = compile_expression("1 - token_msp", {"token_msp": "DOUBLE"})
    c.execute(f"CREATE TEMP TABLE scored AS SELECT item_index, {compiled.sql} AS confidence"
              " FROM item_signals AS s")  # fmt: skip
    c.execute("CHECKPOINT")
    assert c.execute("SELECT confidence FROM scored ORDER BY item_index").fetchall() == [
        (1 - 0.9,), (1 - 0.2,), (0.5,)]  # fmt: skip
    c.execute("INSERT INTO item_signals VALUES (3, 0.0)")
    c.close()
    again = duckdb.connect(str(path))  # a new instance starts with access on again
    assert again.execute("SELECT count(*) FROM item_signals").fetchall() == [(4,)]
    assert again.execute("SELECT current_setting('enable_external_access')").fetchall() == [(True,)]
    again.close()
