"""Per-sample rows as stored (docs/formats.md): `fill` writes what a plain reading of the file gives, in
storage order, whichever way the rows are laid out (the staged table as read, a sorted copy,
or one INSERT per table for many experiments)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from riskcov.errors import InputError
from riskcov.formats import per_sample
from riskcov.formats.per_sample import store_rows as samples_store
from riskcov.formats.per_sample.read import SampleDefaults, stage_samples
from riskcov.warehouse.migrations import migrate

HEADER = (
    "sample_id",
    "seed",
    "domain",
    "cluster",
    "abstained",
    "confidence_b",
    "confidence_a",
    "loss",
    "site",
)


def _rows(n: int) -> list[tuple[str, int, str, int, bool, float, float, float, str]]:
    # text ids, three seeds x two domains interleaved, integer clusters, every 7th abstained
    return [
        (
            f"s{(i * 17) % n}",
            (2, 0, 1)[i % 3],
            "ood" if i % 5 == 0 else "id",
            i % 4,
            i % 7 == 0,
            i / 8,
            -i / 4,
            i % 3,
            f"site{i % 4}",
        )
        for i in range(n)
    ]


def _oracle(rows: list, ids: list[int]) -> tuple[list, list, list]:
    """samples, sample_scores and sample_attributes rows in storage order, from the rows in file order."""
    experiments = sorted({(r[1], r[2]) for r in rows})
    samples, scores, attributes = [], [], []
    for eid, key in zip(ids, experiments, strict=True):
        mine = [r for r in rows if (r[1], r[2]) == key]
        samples += [
            (eid, i, r[0], str(r[3]), r[3], r[4], float(r[7]), None, None, None) for i, r in enumerate(mine)
        ]
        for csf, col in (("a", 6), ("b", 5)):
            scores += [(eid, i, csf, None if r[4] else r[col]) for i, r in enumerate(mine)]
        attributes += [(eid, i, "site", r[8]) for i, r in enumerate(mine)]
    return samples, scores, attributes


TYPED = "_riskcov_samples_typed"


@pytest.mark.parametrize(
    ("order", "sliced_max", "table", "in_transaction"),
    [
        ("file", samples_store.SLICED_MAX, samples_store.ORDERED, False),  # interleaved: a sorted copy
        ("sorted", samples_store.SLICED_MAX, TYPED, False),  # already in order: no copy
        ("file", 0, samples_store.ORDERED, False),  # one INSERT per table
        # inside an open transaction (evaluate --input FILE) new tables' rowids do not start at 0
        ("sorted", samples_store.SLICED_MAX, TYPED, True),
        ("file", 0, samples_store.ORDERED, True),
    ],
)
def test_stored_rows_match_a_plain_reading_of_the_file(
    tmp_path: Path, monkeypatch, order, sliced_max, table, in_transaction
):
    monkeypatch.setattr(samples_store, "SLICED_MAX", sliced_max)
    rows = _rows(60)
    if order == "sorted":
        rows.sort(key=lambda r: (r[1], r[2]))  # stable: file order within an experiment
    path = tmp_path / "m.csv"
    path.write_text(
        ",".join(HEADER) + "\n" + "".join(",".join(str(v).lower() for v in r) + "\n" for r in rows)
    )
    con = duckdb.connect()
    migrate(con)
    if in_transaction:
        con.execute("BEGIN TRANSACTION")
    staged = stage_samples(con, path, SampleDefaults())
    assert (staged.layout.table, len(staged.experiments)) == (table, 6)
    ids = [10 + 3 * k for k in range(6)]
    per_sample.fill(con, ids, staged)
    if in_transaction:
        con.execute("COMMIT")
    con.execute("SET threads = 1")
    samples, scores, attributes = _oracle(rows, ids)
    assert con.sql("SELECT * FROM samples ORDER BY rowid").fetchall() == samples
    assert con.sql("SELECT * FROM sample_scores ORDER BY rowid").fetchall() == scores
    assert con.sql("SELECT * FROM sample_attributes ORDER BY ALL").fetchall() == sorted(attributes)
    left = "SELECT table_name FROM duckdb_tables() WHERE temporary UNION ALL "
    left += "SELECT view_name FROM duckdb_views() WHERE temporary AND NOT internal"
    assert con.sql(left).fetchall() == []


def test_rows_are_numbered_from_1_inside_an_open_transaction(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("sample_id,confidence,correct\n1,0.5,1\n2,high,1\n")
    con = duckdb.connect()
    con.execute("BEGIN TRANSACTION")
    with pytest.raises(InputError) as info:
        stage_samples(con, path, SampleDefaults())
    assert str(info.value) == f'{path}: row 2, column confidence: value "high" is not a number'
