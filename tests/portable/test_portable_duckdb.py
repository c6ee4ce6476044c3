"""The portable metric queries of sql/portable/ (docs/spark.md): refused constructs are caught,
every query renders for every dialect, and in DuckDB the rendering gives the macros' values on
random data with ties, abstentions, 0/1, integer (loss_scale 3) and continuous losses and a
few bootstrap replicates: with integer losses the working points, MAE@coverage and
Coverage@Risk bit for bit (and every value on small data); otherwise within 1e-13 relative:
continuous loss sums are exact DECIMALs to 18 places here and exact limbs in the macros (last
bit), and on hundreds of points the areas are float sums in another order (the portable
running window vs the macros' ordered aggregate, which only DuckDB has)."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest
import sqlglot
from hypothesis import example, given, settings
from hypothesis import strategies as st
from portable_support import ALPHAS, PORTABLE_COLUMNS, load_inputs, make_data, mismatches, reference, wrap

import rendered_once
from riskcov.metrics import dialects, portable

REFUSED_SQL = {
    "fsum": "SELECT fsum(x ORDER BY x) FROM t",
    "ordered sum": "SELECT sum(x ORDER BY x) FROM t",
    "list": "SELECT list(x ORDER BY x) FROM t",
    "error": "SELECT error('no') FROM t",
    "exclude": "SELECT * EXCLUDE (x) FROM t",
    "replace": "SELECT * REPLACE (x + 1 AS x) FROM t",
    "materialized": "WITH a AS MATERIALIZED (SELECT 1 AS x) SELECT x FROM a",
    "asof": "SELECT t.x FROM t ASOF JOIN u ON t.x <= u.x",
    "columns": "SELECT COLUMNS(*) FROM t",
    "arg_max_null": "SELECT arg_max_null(x, y) FROM t",
    "arg_max": "SELECT arg_max(x, y) FROM t",
    "nextafter": "SELECT nextafter(x, 1.0) FROM t",
    "quantile_cont": "SELECT quantile_cont(x, 0.5) FROM t",
    "filter": "SELECT count(*) FILTER (WHERE x > 0) FROM t",
    "qualify": "SELECT x FROM t QUALIFY row_number() OVER (ORDER BY x) = 1",
    "query_table": "SELECT * FROM query_table('t')",
    "range": "SELECT * FROM range(3)",
}


def test_portable_queries_use_only_portable_constructs() -> None:
    for name, q in portable.queries().items():
        assert dialects.problems(q.parse()) == [], name


@pytest.mark.parametrize("construct", sorted(REFUSED_SQL))
def test_lint_refuses_constructs_without_an_equivalent(construct: str) -> None:
    assert dialects.problems(sqlglot.parse_one(REFUSED_SQL[construct], read="duckdb")), construct


def test_rewritten_constructs_render_without_duckdb_functions() -> None:
    tree = sqlglot.parse_one("SELECT isfinite(x), CAST(y AS HUGEINT) FROM t", read="duckdb")
    assert dialects.problems(tree) == []
    for dialect in dialects.DIALECTS[1:]:
        text = dialects.transform(tree.copy(), dialect).sql(dialect=dialect)
        assert (
            "isfinite" not in text.lower() and "int128" not in text.lower() and "hugeint" not in text.lower()
        )
    con = duckdb.connect()
    got = con.execute(
        dialects.transform(sqlglot.parse_one("SELECT isfinite(x) FROM t", read="duckdb"), "spark")
        .sql("duckdb")
        .replace(
            "FROM t", "FROM (VALUES (1.5), ('inf'::DOUBLE), ('-inf'::DOUBLE), ('nan'::DOUBLE), (NULL)) t(x)"
        )
    ).fetchall()
    assert [r[0] for r in got] == [True, False, False, False, None]


@pytest.mark.parametrize("dialect", dialects.DIALECTS)
def test_every_metric_renders_for_every_dialect(dialect: str) -> None:
    for name in portable.METRICS:
        text = portable.render(name, dialect)
        assert text.lstrip().upper().startswith(("WITH", "SELECT")), name
        # inlining leaves no CTE name twice
        tree = sqlglot.parse_one(text, read=dialect)
        names = [c.alias_or_name for c in tree.find_all(sqlglot.exp.CTE)]
        assert len(names) == len(set(names)), name


ORACLE_COLUMNS = {"aurc_optimal", "augrc_optimal", "eaurc", "eaugrc"}


def _compare(seed: int, clusters: int, replicates: int, exact_summary: bool) -> None:
    con = duckdb.connect()
    load_inputs(con, make_data(seed, clusters, replicates))
    want = reference(con)
    # a continuous selective risk a last bit away from an alpha may qualify on one side only
    edges = {(r[0], r[1], a) for r in want["points"] if r[0] == 2 for a in ALPHAS if abs(r[6] - a) < 1e-13}
    for name in PORTABLE_COLUMNS:
        got = con.execute(wrap(name, rendered_once.render(name, "duckdb"))).fetchall()
        if name == "coverage_at_risk":
            got, want[name] = ([r for r in rows if r[:3] not in edges] for rows in (got, want[name]))
        # balanced: the macros sum its terms by fsum (compensated), the query by a running window
        exact = set() if name == "balanced" else {0, 1} if name != "summary" or exact_summary else set()
        if name == "summary":
            # the oracle's area is a float sum over its runs in another order, each run's term a
            # difference of harmonic numbers (up to ~5 here): its rounding is absolute, a few
            # eps * H per run, so a small area (0.004 at seed 163) can differ beyond 1e-13
            # relative; within 1e-14 absolute it agrees
            cols = [c.strip() for c in PORTABLE_COLUMNS[name].split(",")]
            oracle = [i for i, c in enumerate(cols) if c in ORACLE_COLUMNS]
            rest = [i for i in range(2, len(cols)) if i not in oracle]
            for group, series, tol in ((oracle, set(), 1e-14), (rest, exact, 1e-15)):
                pick = [[(r[0], r[1], *(r[i] for i in group)) for r in rows] for rows in (got, want[name])]
                assert mismatches(name, pick[0], pick[1], series, 1e-13, tol) == [], (seed, name)
            continue
        assert mismatches(name, got, want[name], exact, rel=1e-13) == [], (seed, name)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31 - 1))
@example(163)
def test_small_random_data_equals_the_macros_bit_for_bit(seed: int) -> None:
    """Up to ~30 points a block DuckDB's window sums add in the macros' order: with integer
    losses every value is equal but the oracle's area (a float sum in another order: 1e-13)."""
    _compare(seed, clusters=12, replicates=3, exact_summary=True)


@pytest.mark.parametrize("seed", [1, 2])
def test_larger_random_data_equals_the_macros(seed: int) -> None:
    """Hundreds of points per block and runs of equal loss past the harmonic table's 32."""
    _compare(seed, clusters=300, replicates=4, exact_summary=False)


def _auroc_oracle(pos: list[float | None], neg: list[float | None]) -> float:
    key = [-np.inf if v is None else v for v in pos], [-np.inf if v is None else v for v in neg]
    wins = sum((p > n) + 0.5 * (p == n) for p in key[0] for n in key[1])
    return float(wins / (len(pos) * len(neg)))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_auroc_equals_the_macro_and_a_pairwise_count(seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = [
        (
            s,
            None if rng.random() < 0.1 else float(rng.choice([0.1, 0.5, 0.9, rng.random()])),
            bool(rng.random() < 0.5),
        )
        for s in range(2)
        for _ in range(int(rng.integers(1, 25)))
    ]
    con = duckdb.connect()
    con.execute("CREATE TABLE scores (series INTEGER, score DOUBLE, positive BOOLEAN)")
    con.executemany("INSERT INTO scores VALUES (?, ?, ?)", rows)
    con.execute((portable.resource_dir("sql") / "rc_auroc.sql").read_text())
    got = con.execute(
        f"SELECT series, auroc FROM ({rendered_once.render('auroc', 'duckdb')}) q ORDER BY 1"
    ).fetchall()
    want = con.execute("SELECT series, auroc FROM rc_auroc('scores') ORDER BY 1").fetchall()
    assert got == want
    for s, value in got:
        pos = [r[1] for r in rows if r[0] == s and r[2]]
        neg = [r[1] for r in rows if r[0] == s and not r[2]]
        assert value == (None if not pos or not neg else pytest.approx(_auroc_oracle(pos, neg), abs=1e-15))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_ood_at_id_coverage_equals_numpy(seed: int) -> None:
    """threshold = numpy.quantile(ID confidences, 1 - c), bit for bit; acceptance shares."""
    rng = np.random.default_rng(seed)
    rows = [
        (0, None if rng.random() < 0.1 else float(rng.choice([0.2, 0.6, rng.random()])), bool(ood))
        for ood in (0, 1)
        for _ in range(int(rng.integers(1, 30)))
    ]
    targets = [0.6, 0.7, 0.8, 0.9, 0.95]
    con = duckdb.connect()
    con.execute("CREATE TABLE domain_scores (series INTEGER, confidence DOUBLE, ood BOOLEAN)")
    con.executemany("INSERT INTO domain_scores VALUES (?, ?, ?)", rows)
    con.execute("CREATE TABLE targets AS SELECT unnest(?::DOUBLE[]) AS c", [targets])
    got = con.execute(
        f"SELECT id_coverage_target, threshold, id_coverage_actual, ood_accept_rate, safety_ratio "
        f"FROM ({rendered_once.render('ood_at_id_coverage', 'duckdb')}) q ORDER BY 1"
    ).fetchall()
    ids = np.array([r[1] for r in rows if not r[2] and r[1] is not None])
    if not len(ids):
        assert got == []
        return
    for c, (target, tau, id_acc, ood_acc, ratio) in zip(targets, got, strict=True):
        assert target == c and tau == float(np.quantile(ids, 1 - c))
        n_id = sum(not r[2] for r in rows)
        n_ood = len(rows) - n_id
        assert id_acc == sum(not r[2] and r[1] is not None and r[1] >= tau for r in rows) / n_id
        assert ood_acc == sum(r[2] and r[1] is not None and r[1] >= tau for r in rows) / n_ood
        assert ratio == id_acc / (ood_acc + 1e-8)


def test_spark_casts_a_number_to_double_from_its_text() -> None:
    # 0.30000000000000004 has 17 digits, more than a long holds exactly in a double: Spark's
    # DECIMAL literal would round it twice; its text is parsed once, as DuckDB parses the literal
    tree = sqlglot.parse_one(
        "SELECT CAST(0.30000000000000004 AS DOUBLE) * x + CAST(-0.12345678901234567 AS DOUBLE), "
        "CAST(2 AS INT), -CAST(1.5 AS DOUBLE) FROM t",
        read="duckdb",
    )
    spark = dialects.transform(tree.copy(), "spark").sql(dialect="spark")
    assert "CAST('0.30000000000000004' AS DOUBLE)" in spark and "CAST(2 AS INT)" in spark
    # a negative number (the negation of a literal, as calibrators write their coefficients)
    assert "CAST('-0.12345678901234567' AS DOUBLE)" in spark and "-CAST('1.5' AS DOUBLE)" in spark
    for dialect in ("duckdb", "postgres"):
        assert "'0.30000000000000004'" not in dialects.transform(tree.copy(), dialect).sql(dialect=dialect)
    # the text reads back as the literal's double
    value = (
        duckdb.connect()
        .execute("SELECT CAST('0.30000000000000004' AS DOUBLE), CAST('-0.12345678901234567' AS DOUBLE)")
        .fetchone()
    )
    assert value == (0.30000000000000004, -0.12345678901234567)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=20))
@example([-0.0, 0.0, 5e-324, -5e-324, 1e-320, 1e308, -1.7976931348623157e308, 0.30000000000000004])
def test_spark_reads_every_double_literal_as_duckdb_does(values: list[float]) -> None:
    # the calibrators write a coefficient as CAST(<repr> AS DOUBLE); Spark reads the rewritten
    # text as DuckDB's CAST of a string (one correctly rounded parse), and must get DuckDB's
    # double bit for bit: DuckDB reads `-0.0` as the negation of a DECIMAL, +0.0
    query = "SELECT [" + ", ".join(f"CAST({v!r} AS DOUBLE)" for v in values) + "]"
    tree = sqlglot.parse_one(query, read="duckdb")
    text = dialects.transform(tree.copy(), "spark").sql(dialect="duckdb")
    assert text.count("CAST('") == len(values)
    con = duckdb.connect()
    duck, spark = (con.execute(q).fetchone()[0] for q in (query, text))
    assert [float(v).hex() for v in spark] == [float(v).hex() for v in duck]
