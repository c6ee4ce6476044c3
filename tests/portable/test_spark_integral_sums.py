"""The Spark engine's integer-loss rendering (portable.render(..., integral=True), used when
every loss is an integer and every sum stays below 2**53: evaluation/spark_engine.py): the
exact DECIMAL loss sums become doubles, which hold such sums exactly, so every metric keeps
its bits. Run in DuckDB (default suite) on random data with ties, abstentions, 0/1 and
integer losses and bootstrap replicates, against the DECIMAL rendering."""

from __future__ import annotations

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st
from portable_support import PORTABLE_COLUMNS, load_inputs, make_data, wrap

import rendered_once
from riskcov.metrics import portable

INTEGER_SERIES = {0, 1}  # portable_support.KINDS: 0/1 losses, integer losses 0..3


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([12, 120]))
def test_integer_losses_in_doubles_keep_every_bit(seed: int, clusters: int) -> None:
    con = duckdb.connect()
    load_inputs(con, make_data(seed, clusters, replicates=3))
    for name in PORTABLE_COLUMNS:
        text = rendered_once.render(name, "duckdb", integral=True)
        assert "DECIMAL(27, 18)" not in text and "DECIMAL(10, 0)" not in text, name
        texts = [rendered_once.render(name, "duckdb", integral=i) for i in (False, True)]
        rows = [con.execute(wrap(name, t)).fetchall() for t in texts]
        exact, doubles = ([r for r in got if r[0] in INTEGER_SERIES] for got in rows)
        assert exact and doubles == exact, (seed, name)


def test_only_the_loss_sums_change() -> None:
    """auroc's DECIMAL(19, 0) pair counts are not loss sums: left as they are."""
    assert "DECIMAL(19, 0)" in portable.render("auroc", "spark", integral=True)
    assert portable.render("cells", "spark", integral=False).count("DECIMAL(27, 18)") == 2
