"""Per-sample tables (docs/formats.md): staging values, defaults, cluster order, loss sources, and errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from riskcov.errors import InputError, UsageError
from riskcov.formats.per_sample.read import SampleDefaults, SampleExperiment, stage_samples

SAMPLES = "SELECT * FROM staged_samples ORDER BY row_number"
SCORES = "SELECT * FROM staged_scores ORDER BY csf, method, seed, split, domain, sample_id"


def stage(tmp_path: Path, text: str, name: str = "run.csv", **defaults: Any) -> tuple[Any, Any]:
    path = tmp_path / name
    path.write_text(text)
    con = duckdb.connect()
    return con, stage_samples(con, path, SampleDefaults(**defaults))


def fail(tmp_path: Path, text: str, name: str = "x.csv") -> str:
    """The InputError message for a file, without its `<path>: ` prefix."""
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as info:
        stage_samples(duckdb.connect(), path, SampleDefaults())
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    return message.removeprefix(f"{path}: ")


def test_the_worked_example_of_spec_9_stages_exactly(tmp_path: Path) -> None:
    text = "sample_id,confidence,correct\n1,0.9,1\n2,0.7,1\n3,0.7,0\n4,0.5,0\n5,0.2,1\n"
    con, staged = stage(tmp_path, text, "wx.csv")
    base = ("wx", 0, "test", "id")
    assert con.sql(SAMPLES).fetchall() == [
        (*base, r, r - 1, str(r), str(r), r, False, loss, None, None, None)
        for r, loss in zip(range(1, 6), [0.0, 0.0, 1.0, 1.0, 0.0], strict=True)
    ]
    assert con.sql(SCORES).fetchall() == [
        (*base, str(r), "confidence", c) for r, c in zip(range(1, 6), [0.9, 0.7, 0.7, 0.5, 0.2], strict=True)
    ]
    assert staged.csfs == ("confidence",)
    assert staged.loss_source == "correct"
    assert staged.experiments == (SampleExperiment("wx", 0, "test", "id", 5, 0),)
    assert (staged.n_rows, staged.numeric_clusters) == (5, True)
    assert staged.columns == ("sample_id", "confidence", "correct")
    assert not (staged.has_prob or staged.has_cluster or staged.has_abstained or staged.has_label)
    # the staged rows give docs/formats.md's working points (plateaus share their running sums)
    points = con.sql("""SELECT DISTINCT count(*) OVER w / 5, sum(s.loss) OVER w / count(*) OVER w,
            sum(s.loss) OVER w / 5 FROM staged_samples s JOIN staged_scores c USING (sample_id)
        WINDOW w AS (ORDER BY c.confidence DESC RANGE UNBOUNDED PRECEDING) ORDER BY 1""").fetchall()
    assert points == [(0.2, 0.0, 0.0), (0.6, 1 / 3, 0.2), (0.8, 0.5, 0.4), (1.0, 0.4, 0.4)]


def test_defaults_apply_to_missing_columns_and_file_columns_win(tmp_path: Path) -> None:
    con, staged = stage(
        tmp_path,
        "sample_id,confidence,loss\na,0.5,0.25\n",
        "r.csv",
        method="m",
        seed=3,
        split="cal",
        domain="ood",
    )
    assert con.sql("SELECT method, seed, split, domain FROM staged_samples").fetchall() == [
        ("m", 3, "cal", "ood")
    ]
    text = "sample_id,confidence,loss,seed,domain,split,method\na,0.5,0.25,7,id,test,z\n"
    con, staged = stage(tmp_path, text, "r.csv", method="m", seed=3, split="cal", domain="ood")
    assert staged.experiments == (SampleExperiment("z", 7, "test", "id", 1, 0),)


def test_experiments_are_sorted_counted_and_indexed_in_file_order(tmp_path: Path) -> None:
    text = (
        "sample_id,confidence,correct,seed,domain,abstained\n"
        "a,0.1,1,1,ood,false\nb,0.2,0,0,id,true\nc,0.3,1,1,ood,true\na,0.4,1,0,id,false\n"
    )
    con, staged = stage(tmp_path, text, "m.csv")
    assert staged.experiments == (
        SampleExperiment("m", 0, "test", "id", 2, 1),
        SampleExperiment("m", 1, "test", "ood", 2, 1),
    )
    got = con.sql(
        "SELECT row_number, seed, sample_index, sample_id, abstained FROM staged_samples ORDER BY row_number"
    ).fetchall()
    assert got == [(1, 1, 0, "a", False), (2, 0, 0, "b", True), (3, 1, 1, "c", True), (4, 0, 1, "a", False)]
    # an abstained sample's confidence is NULL whatever the file says
    assert con.sql(
        "SELECT sample_id, seed, confidence FROM staged_scores ORDER BY seed, sample_id"
    ).fetchall() == [("a", 0, 0.4), ("b", 0, None), ("a", 1, 0.1), ("c", 1, None)]


@pytest.mark.parametrize(
    ("ids", "ranks", "numeric"),
    [
        (["10", "9", "100", "-5", "9"], [3, 2, 4, 1, 2], True),
        (["10", "9", "100", "x"], [1, 3, 2, 4], False),
        (["007", "10", "7"], [1, 2, 3], False),  # zero-padded: names, text order
        (["+7", "10"], [1, 2], False),
    ],
)
def test_cluster_no_is_numeric_for_integer_spellings_else_text(tmp_path, ids, ranks, numeric) -> None:
    rows = "".join(f"s{i},{c},0.5,1\n" for i, c in enumerate(ids))
    con, staged = stage(tmp_path, "sample_id,cluster,confidence,correct\n" + rows)
    assert con.sql("SELECT cluster, cluster_no FROM staged_samples ORDER BY row_number").fetchall() == list(
        zip(ids, ranks, strict=True)
    )
    assert (staged.numeric_clusters, staged.has_cluster) == (numeric, True)


def test_cluster_order_follows_the_column_type_in_parquet_and_json(tmp_path: Path) -> None:
    con = duckdb.connect()
    for name, ids in [
        ("text.parquet", "'10', '9'"),
        ("ints.parquet", "10, 9"),
        ("floats.jsonl", "10.0, 9.0"),
    ]:
        fmt = "parquet" if name.endswith("parquet") else "json"
        con.execute(
            f"COPY (SELECT unnest([{ids}]) AS sample_id, 0.5 AS confidence, 1 AS correct) "
            f"TO '{tmp_path / name}' (FORMAT {fmt})"
        )
        staged = stage_samples(con, tmp_path / name, SampleDefaults())
        got = con.sql("SELECT sample_id, cluster_no FROM staged_samples ORDER BY row_number").fetchall()
        assert (got, staged.numeric_clusters) == (
            ([("10", 1), ("9", 2)], False) if name == "text.parquet" else ([("10", 2), ("9", 1)], True)
        )


@pytest.mark.parametrize(
    ("header", "values", "source", "losses", "labels"),
    [
        ("loss", ["0.25", "0", "3"], "loss", [0.25, 0.0, 3.0], [(None, None)] * 3),
        ("correct", ["true", "FALSE", "1.0"], "correct", [0.0, 1.0, 0.0], [(None, None)] * 3),
        ("correct", ["0", "1", "0"], "correct", [1.0, 0.0, 1.0], [(None, None)] * 3),
        (
            "label,prediction",
            ["a,a", "a,b", "1,1"],
            "label_prediction",
            [0.0, 1.0, 0.0],
            [("a", "a"), ("a", "b"), ("1", "1")],
        ),
        (
            "loss,label,prediction",
            ["0.5,a,b", "0,a,a", "1,,"],
            "loss",
            [0.5, 0.0, 1.0],
            [("a", "b"), ("a", "a"), (None, None)],
        ),
    ],
)
def test_the_three_loss_sources(tmp_path, header, values, source, losses, labels) -> None:
    rows = "".join(f"s{i},0.5,{v}\n" for i, v in enumerate(values))
    con, staged = stage(tmp_path, f"sample_id,confidence,{header}\n" + rows)
    got = con.sql("SELECT loss, label, prediction FROM staged_samples ORDER BY row_number").fetchall()
    assert [g[0] for g in got] == losses
    assert [g[1:] for g in got] == labels
    assert staged.loss_source == source


def test_json_booleans_numbers_and_numeric_strings(tmp_path: Path) -> None:
    text = (
        '{"sample_id": 1, "confidence_msp": "0.5", "correct": true, "abstained": false, "prob": 1}\n'
        '{"sample_id": 2, "confidence_msp": null, "correct": 0, "abstained": true, "prob": 0.25}\n'
    )
    con, staged = stage(tmp_path, text, "j.ndjson")
    assert con.sql("SELECT sample_id, abstained, loss, prob FROM staged_samples ORDER BY 1").fetchall() == [
        ("1", False, 0.0, 1.0),
        ("2", True, 1.0, 0.25),
    ]
    assert con.sql("SELECT csf, confidence FROM staged_scores ORDER BY sample_id").fetchall() == [
        ("msp", 0.5),
        ("msp", None),
    ]
    assert (staged.csfs, staged.has_prob, staged.has_abstained) == (("msp",), True, True)


def test_other_columns_are_attributes_kept_as_text(tmp_path: Path) -> None:
    text = "sample_id,site,confidence,correct,age\n1,a,0.9,1,3\n2,b,0.8,0,\n3,a,0.7,1,5.5\n"
    con, staged = stage(tmp_path, text, "att.csv")
    assert staged.attributes == ("site", "age")
    assert con.sql("SELECT sample_id, name, value FROM staged_attributes ORDER BY 2, 1").fetchall() == [
        ("1", "age", "3"),
        ("2", "age", None),
        ("3", "age", "5.5"),
        ("1", "site", "a"),
        ("2", "site", "b"),
        ("3", "site", "a"),
    ]
    # typed JSON values: numbers and booleans as text, strings as they are
    text = (
        '{"sample_id": 1, "confidence": 0.5, "correct": 1, "n": 2, "ok": true, "k": "x"}\n'
        '{"sample_id": 2, "confidence": 0.5, "correct": 1, "n": 2.5, "ok": false, "k": 7}\n'
    )
    con, staged = stage(tmp_path, text, "att.jsonl")
    assert staged.attributes == ("n", "ok", "k")
    got = con.sql("SELECT sample_id, name, value FROM staged_attributes ORDER BY 2, 1").fetchall()
    assert got == [
        ("1", "k", "x"),
        ("2", "k", "7"),
        ("1", "n", "2.0"),
        ("2", "n", "2.5"),
        ("1", "ok", "true"),
        ("2", "ok", "false"),
    ]
    con, staged = stage(tmp_path, H + "1,0.5,1\n", "none.csv")
    assert staged.attributes == ()
    assert con.execute("SELECT count(*) FROM staged_attributes").fetchall() == [(0,)]


H = "sample_id,confidence,correct\n"
EXP = "experiment (method x, seed 0, split test, domain id)"
KNOWN = (
    "sample_id, confidence, confidence_<name>, loss, correct, label, prediction, prob, abstained, "
    "method, seed, split, domain, cluster"
)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("x.csv", H + "1,0.5,1\n2,0.5,2\n", "row 2, column correct: value 2 is not 0, 1, true or false"),
        (
            "x.csv",
            H + "a,0.5,1\nb,0.5,0\na,0.1,1\n",
            'row 3, column sample_id: value "a" repeats row 1 of ' + EXP,
        ),
        (
            "x.csv",
            H + "7,0.5,1\n7,0.5,1\n",
            "row 2, column sample_id: value 7 repeats row 1 of " + EXP,
        ),
        ("x.csv", H + "1,nan,1\n", "row 1, column confidence: value nan is not a finite number"),
        ("x.csv", H + "1,-Infinity,1\n", "row 1, column confidence: value -Infinity is not a finite number"),
        ("x.csv", H + "1,1e400,1\n", "row 1, column confidence: value 1e400 is not a finite number"),
        ("x.csv", H + "1,high,1\n", 'row 1, column confidence: value "high" is not a number'),
        ("x.csv", H + "1,1_000,1\n", 'row 1, column confidence: value "1_000" is not a number'),
        ("x.csv", H + '1,"x\ny",1\n', 'row 1, column confidence: value "x\\ny" is not a number'),
        ("x.csv", H + f"1,{'a' * 50},1\n", f'row 1, column confidence: value "{"a" * 36}... is not a number'),
        (
            "x.csv",
            H + "1,0.5,1\n2,,1\n",
            "row 2, column confidence: value is null but the sample is not abstained",
        ),
        ("x.csv", H + "1,0.5,1\n,0.5,1\n", "row 2, column sample_id: value is null"),
        ("x.csv", "sample_id,confidence,loss\n1,0.1,-0.5\n", "row 1, column loss: value -0.5 is below 0"),
        (
            "x.csv",
            "sample_id,confidence,loss,domain\n1,0.1,0,test\n",
            'row 1, column domain: value "test" is not id or ood',
        ),
        ("x.csv", H[:-1] + ",seed\n1,0.5,1,1.5\n", "row 1, column seed: value 1.5 is not an integer"),
        (
            "x.csv",
            H[:-1] + ",seed\n1,0.5,1,99999999999999999999\n",
            "row 1, column seed: value 99999999999999999999 is outside the 64-bit integer range",
        ),
        ("x.csv", H[:-1] + ",seed\n1,0.5,1,\n", "row 1, column seed: value is null"),
        ("x.csv", H[:-1] + ",prob\n1,0.5,1,1.5\n", "row 1, column prob: value 1.5 is not in [0, 1]"),
        (
            "x.csv",
            H[:-1] + ",abstained\n1,0.5,1,maybe\n",
            'row 1, column abstained: value "maybe" is not 0, 1, true or false',
        ),
        (
            "x.jsonl",
            '{"sample_id": 1.5, "confidence": 0.5, "correct": 1}\n',
            "row 1, column sample_id: value 1.5 is not a string or an integer",
        ),
        (
            "x.jsonl",
            '{"sample_id": 1, "confidence": true, "correct": 1}\n',
            "row 1, column confidence: value true is not a number",
        ),
        (
            "x.jsonl",
            '{"sample_id": 1, "confidence": 0.5, "correct": 1, "method": ""}\n',
            'row 1, column method: value "" is empty',
        ),
        (
            "x.jsonl",
            '{"sample_id": 1, "confidence": 0.5, "label": "a", "prediction": null}\n',
            "row 1, column prediction: value is null",
        ),
        # the first problem in file order: the lowest row, then the leftmost column
        (
            "x.csv",
            H + "1,0.5,1\n2,0.5,5\n3,x,5\n",
            "row 2, column correct: value 5 is not 0, 1, true or false",
        ),
        ("x.csv", H + "1,x,5\n", 'row 1, column confidence: value "x" is not a number'),
        (
            "x.csv",
            H + "1,0.5,1\n1,0.5,5\n",
            "row 2, column sample_id: value 1 repeats row 1 of " + EXP,
        ),
        (
            "x.csv",
            "confidence,sample_id,correct\n0.5,1,1\nx,1,1\n",
            'row 2, column confidence: value "x" is not a number',
        ),
        # the header
        (
            "x.csv",
            "sample_id,confidnce,correct\n1,0.5,1\n",
            f"column confidnce: unknown column, close to confidence; rename it if it is an attribute "
            f"(known: {KNOWN})",
        ),
        (
            "x.csv",
            "sample_id,confidence,correct,Label\n1,0.5,1,a\n",
            f"column Label: unknown column, close to label; rename it if it is an attribute (known: {KNOWN})",
        ),
        ("x.csv", "id,confidence,correct\n1,0.5,1\n", "no sample_id column"),
        (
            "x.jsonl",
            '{"sample_id": 1, "confidence": 0.5, "correct": 1, "site": "a"}\n'
            '{"sample_id": 2, "confidence": 0.5, "correct": 1, "site": ["a"]}\n',
            "row 2, column site: value is a JSON object or list; a cell holds one value",
        ),
        (
            "x.jsonl",
            '{"sample_id": 1, "confidence": 0.5, "correct": 1, "label": {"k": 1}, "prediction": "a"}\n',
            "row 1, column label: value is a JSON object or list; a cell holds one value",
        ),
        ("x.csv", "confidence,correct\n0.5,1\n", "no sample_id column"),
        ("x.csv", "sample_id,correct\n1,1\n", "no score column: give confidence or confidence_<name>"),
        (
            "x.csv",
            "sample_id,confidence\n1,0.5\n",
            "no loss column: give loss, correct, or label and prediction",
        ),
        (
            "x.csv",
            "sample_id,confidence,loss,correct\n1,0.5,0,1\n",
            "columns loss and correct both give the loss; keep one",
        ),
        ("x.csv", "sample_id,confidence,label\n1,0.5,a\n", "column label without column prediction"),
        (
            "x.csv",
            "sample_id,confidence,loss,prediction\n1,0.5,0,a\n",
            "column prediction without column label",
        ),
        (
            "x.csv",
            "sample_id,confidence_MSP,loss\n1,0.5,0\n",
            'column confidence_MSP: the CSF name "MSP" is not lower-case letters, digits and _',
        ),
        (
            "x.csv",
            "sample_id,confidence,confidence_confidence,loss\n1,0.5,0.5,0\n",
            "columns confidence and confidence_confidence both give CSF confidence",
        ),
        ("x.csv", "sample_id,confidence,confidence,loss\n1,0.5,0.5,0\n", "column confidence appears twice"),
        ("x.csv", "sample_id,confidence,,loss\n1,0.5,0.5,0\n", "column 3 has no name"),
        ("x.csv", "", "no data rows"),
        ("x.csv", H, "no data rows"),
        # unreadable files: DuckDB's own words, on one line
        (
            "x.csv",
            'sample_id,confidence\n1,"0.5\n2,0.3\n',
            "unreadable CSV: CSV Error on Line: 2: Value with unterminated quote found.",
        ),
        (
            "x.csv",
            "sample_id,confidence\n1,0.5,3\n",
            "unreadable CSV: CSV Error on Line: 2: Expected Number of Columns: 2 Found: 3",
        ),
        ("x.parquet", "PAR1garbagePAR1", "unreadable Parquet: Footer length error in file '{path}'"),
    ],
)
def test_bad_input_gets_one_exact_line(tmp_path, name, text, message) -> None:
    assert fail(tmp_path, text, name) == message.replace("{path}", str(tmp_path / name))


def test_unreadable_json_and_text_name_the_file(tmp_path: Path) -> None:
    bad = '{"sample_id": 1, "confidence": 0.5, "correct": 1}\n{"sample_id":\n'
    assert fail(tmp_path, bad, "x.jsonl") == (
        f'unreadable JSON lines: Malformed JSON in file "{tmp_path / "x.jsonl"}", at byte 15 in line 3: '
        "unexpected end of data."
    )
    (tmp_path / "l.csv").write_bytes(b"sample_id,confidence\xe9\n1,2\n")
    with pytest.raises(InputError, match=r"^.*l\.csv: unreadable CSV: the header is not UTF-8 text$"):
        stage_samples(duckdb.connect(), tmp_path / "l.csv", SampleDefaults())


def test_file_names_and_defaults_that_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"x\.txt: not a per-sample table: the name must end in \.csv, "):
        stage_samples(duckdb.connect(), tmp_path / "x.txt", SampleDefaults())
    with pytest.raises(InputError, match=r"nope\.csv: no such file$"):
        stage_samples(duckdb.connect(), tmp_path / "nope.csv", SampleDefaults())
    for kwargs, message in [
        ({"domain": "test"}, 'default domain "test" is not id or ood'),
        ({"seed": True}, "default seed True is not a 64-bit integer"),
        ({"method": ""}, "a default method or split must not be empty"),
    ]:
        with pytest.raises(UsageError) as info:
            SampleDefaults(**kwargs)
        assert str(info.value) == message


def test_a_failed_stage_leaves_no_staged_tables_and_restores_settings(tmp_path: Path) -> None:
    con, _ = stage(tmp_path, H + "1,0.5,1\n")
    con.execute("SET preserve_insertion_order = false")
    (tmp_path / "bad.csv").write_text(H + "1,0.5,2\n")
    with pytest.raises(InputError):
        stage_samples(con, tmp_path / "bad.csv", SampleDefaults())
    tables = con.sql("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()
    assert tables == []
    assert con.sql("SELECT current_setting('preserve_insertion_order')").fetchall() == [(False,)]


def test_csv_parquet_and_jsonl_stage_identically(tmp_path: Path) -> None:
    con = duckdb.connect()
    con.execute("""CREATE TABLE t AS SELECT i AS sample_id, i // 3 AS cluster, i % 2 AS seed,
        CASE WHEN i % 5 = 0 THEN 'ood' ELSE 'id' END AS domain, i % 7 = 0 AS abstained,
        CASE WHEN i % 7 = 0 THEN NULL ELSE i / 40 END AS confidence, (i * 37 % 40) / 40 AS confidence_msp,
        (i % 4) / 3 AS loss, 'c' || (i % 3) AS label, 'c' || (i % 2) AS prediction, 1 - i / 40 AS prob
        FROM range(40) r(i)""")
    results = []
    for name, options in [("t.csv", "HEADER"), ("t.parquet", "FORMAT parquet"), ("t.jsonl", "FORMAT json")]:
        con.execute(f"COPY t TO '{tmp_path / name}' ({options})")
        staged = stage_samples(con, tmp_path / name, SampleDefaults(method="m"))
        results.append(
            (
                con.sql(SAMPLES).fetchall(),
                con.sql(SCORES).fetchall(),
                staged.experiments,
                staged.csfs,
                staged.numeric_clusters,
            )
        )
    assert results[0] == results[1] == results[2]
    samples, scores, experiments, csfs, numeric = results[0]
    assert (len(samples), len(scores), csfs, numeric) == (40, 80, ("confidence", "msp"), True)
    # abstained: i = 0, 14, 28 (seed 0; 0 is ood), 7, 21, 35 (seed 1; 35 is ood)
    assert experiments == (
        SampleExperiment("m", 0, "test", "id", 16, 2),
        SampleExperiment("m", 0, "test", "ood", 4, 1),
        SampleExperiment("m", 1, "test", "id", 16, 2),
        SampleExperiment("m", 1, "test", "ood", 4, 1),
    )
    # i = 7: third of (seed 1, id) after 1 and 3; cluster 7 // 3 = 2 ranks after clusters 0 and 1
    assert samples[7] == ("m", 1, "test", "id", 8, 2, "7", "2", 3, True, 1.0, "c1", "c1", 1 - 7 / 40)
