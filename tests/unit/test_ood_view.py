"""v_ood_at_id_coverage (sql/) agrees exactly with riskcov.ood, i.e. with numpy.quantile
(linear): DuckDB's quantile_cont rounds differently, so the view does numpy's arithmetic."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import duckdb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from riskcov import ood
from riskcov.evaluation.prepared_warehouse import open_warehouse
from riskcov.ingest import ingest_file

COLUMNS = (
    "method, seed, split, csf, id_coverage_target, threshold, id_coverage_actual, ood_accept_rate, "
    "dar, safety_ratio"
)
_COUNTER = itertools.count()

values = st.one_of(
    st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.7, 1.0]),  # ties
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, allow_subnormal=False),
)
domain = st.lists(st.tuples(values, st.booleans()), min_size=1, max_size=25)


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory, warehouse_template: Path) -> Path:
    path = tmp_path_factory.mktemp("view") / "w.duckdb"
    shutil.copyfile(warehouse_template, path)
    return path


def _ingest(wh: Path, folder: Path, method: str, id_rows, ood_rows) -> None:
    lines = ["method,seed,split,domain,sample_id,confidence,correct,abstained"]
    for dom, rows in (("id", id_rows), ("ood", ood_rows)):
        lines += [f"{method},3,test,{dom},{i},{c!r},1,{str(a).lower()}" for i, (c, a) in enumerate(rows)]
    path = folder / f"{method}.csv"
    path.write_text("\n".join(lines) + "\n")
    with open_warehouse(wh) as con:
        ingest_file(con, path)


@pytest.mark.slow  # an ingest into a warehouse per example (docs/testing.md)
@settings(max_examples=examples(50), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(id_rows=domain, ood_rows=domain)
def test_view_equals_numpy_quantile_rows(warehouse, tmp_path, id_rows, ood_rows):
    if all(a for _, a in id_rows):
        id_rows = [(id_rows[0][0], False), *id_rows[1:]]  # the view needs an ID confidence to rank
    method = f"m{next(_COUNTER)}"
    _ingest(warehouse, tmp_path, method, id_rows, ood_rows)
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        got = con.execute(
            f"SELECT {COLUMNS} FROM v_ood_at_id_coverage WHERE method = ? ORDER BY id_coverage_target",
            [method],
        ).fetchall()
    finally:
        con.close()

    def arrays(rows):
        conf = np.array([np.nan if a else c for c, a in rows], dtype=np.float64)
        return conf, np.array([a for _, a in rows], dtype=bool)

    expected = ood.ood_at_id_coverage(*arrays(id_rows), *arrays(ood_rows))
    assert got == [
        (
            method,
            3,
            "test",
            "confidence",
            e["id_coverage_target"],
            e["threshold"],
            e["id_coverage_actual"],
            e["ood_accept_rate"],
            e["dar"],
            e["safety_ratio"],
        )
        for e in expected
    ]


def test_quantile_cont_is_not_numpy_linear():
    """Why the view does not use quantile_cont: a case where the two differ in the last bit."""
    x = [0.1, 0.2, 0.7]
    con = duckdb.connect()
    (got,) = con.execute(
        "SELECT quantile_cont(x, 1.0::DOUBLE - 0.7::DOUBLE) FROM unnest(?) AS t(x)", [x]
    ).fetchall()[0]
    assert float(np.quantile(x, 1 - 0.7)) == 0.16000000000000003
    assert got == 0.16
