"""`riskcov ingest`: good files land with exact counts, bad ones are refused and change nothing."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import riskcov.ingest
from riskcov.errors import InputError

ITEMS = ["NoInterest", "Depressed", "Sleep", "Tired", "Appetite", "Failure", "Concentrating", "Moving"]

COUNTS_SQL = """
SELECT e.experiment_index, e.mode,
       (SELECT count(*) FROM participants p WHERE p.experiment_id = e.experiment_id),
       (SELECT count(*) FROM participants p WHERE p.experiment_id = e.experiment_id
                                              AND NOT p.success),
       (SELECT count(*) FROM items i WHERE i.experiment_id = e.experiment_id),
       (SELECT count(i.pred) FROM items i WHERE i.experiment_id = e.experiment_id),
       (SELECT coalesce(sum(i.pred), 0) FROM items i WHERE i.experiment_id = e.experiment_id),
       (SELECT coalesce(sum(i.gt), 0) FROM items i WHERE i.experiment_id = e.experiment_id),
       (SELECT count(*) FROM item_signals s WHERE s.experiment_id = e.experiment_id)
FROM experiments e WHERE e.run_id = ? ORDER BY e.experiment_index
"""

# the exact error line (after "error: <path>: ") of every file in fixtures/bad
BAD_FILE_ERRORS = {
    "gt_null.json": "experiment few_shot: participant 1000: ground_truth_items.Tired is null; "
    "a ground truth score is required",
    "gt_string.json": 'experiment few_shot: participant 1000: ground_truth_items.Tired = "2" is not 0..3',
    "participant_id_null.json": "experiment few_shot: results.results[0]: participant_id = null "
    "is not an integer",
    "pred_out_of_range.json": "experiment few_shot: participant 1000: predicted_items.Sleep = 7 "
    "is not 0..3 or null",
    "results_not_list.json": "experiment zero_shot: results.results is an object, not a list",
    "signal_boolean.json": "experiment few_shot: participant 1000: "
    "item_signals.Moving.llm_evidence_count = true is a boolean, "
    "not a number",
    "signals_missing_item.json": "experiment few_shot: participant 1000: item_signals.Appetite is missing",
    "truncated.json": "truncated JSON: the file ends inside an open object, list or string",
}


def fixture_path(shared_dir: Path, kind: str, name: str) -> Path:
    return shared_dir / "fixtures" / kind / name


def load(shared_dir: Path, name: str) -> dict[str, Any]:
    return json.loads(fixture_path(shared_dir, "runs", name).read_text())


def write(folder: Path, name: str, doc: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(doc))
    return path


def expected_counts(doc: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What COUNTS_SQL must return, computed from the JSON alone."""
    out = []
    for index, exp in enumerate(doc["experiments"]):
        rows = exp["results"]["results"]
        ok = [r for r in rows if r["success"]]
        preds = [v for r in ok for v in r["predicted_items"].values() if v is not None]
        gts = [v for r in ok for v in r["ground_truth_items"].values()]
        mode = (exp.get("provenance") or {}).get("mode") or exp["results"].get("mode")
        with_signals = sum(1 for r in ok if r.get("item_signals") is not None)
        out.append(
            (
                index,
                mode,
                len(rows),
                len(rows) - len(ok),
                len(ITEMS) * len(ok),
                len(preds),
                sum(preds),
                sum(gts),
                len(ITEMS) * with_signals,
            )
        )
    return out


def good_files(shared_dir: Path) -> list[Path]:
    return sorted((shared_dir / "fixtures" / "runs").glob("*.json"))


@pytest.fixture
def worked(shared_dir: Path) -> dict[str, Any]:
    return load(shared_dir, "worked_example.json")


@pytest.fixture
def public30(shared_dir: Path) -> dict[str, Any]:
    return load(shared_dir, "public30.json")


@pytest.fixture
def seeded(shared_dir, warehouse_path, run_cli):
    """A warehouse holding worked_example.json, so "unchanged" means something."""
    good = fixture_path(shared_dir, "runs", "worked_example.json")
    assert run_cli(["ingest", good, "--warehouse", warehouse_path]).exit_code == 0
    return warehouse_path


# --- good files ----------------------------------------------------------------------------


def test_every_good_fixture_ingests_with_exact_counts(shared_dir, warehouse_path, run_cli, sql):
    files = good_files(shared_dir)
    assert [f.name for f in files] == ["public30.json", "public_continuous.json", "worked_example.json"]
    result = run_cli(["ingest", *files, "--warehouse", warehouse_path])
    assert (result.exit_code, result.stderr) == (0, "")
    assert len(result.stdout.splitlines()) == len(files)
    for path in files:
        doc = json.loads(path.read_text())
        run_id = doc["run_metadata"]["run_id"]
        assert sql(warehouse_path, COUNTS_SQL, [run_id]) == expected_counts(doc), path.name
        assert sql(warehouse_path, "SELECT source_path, git_commit FROM runs WHERE run_id = ?", [run_id]) == [
            (str(path), doc["run_metadata"]["git_commit"])
        ]


def test_good_fixture_counts_are_the_known_numbers(shared_dir, warehouse_path, run_cli, sql):
    # the same check against hand-read numbers, so expected_counts cannot drift with the code
    path = fixture_path(shared_dir, "runs", "public30.json")
    assert run_cli(["ingest", path, "--warehouse", warehouse_path]).exit_code == 0
    rows = sql(warehouse_path, COUNTS_SQL, ["public030"])
    assert [r[:6] for r in rows] == [(0, "zero_shot", 30, 1, 232, 132), (1, "few_shot", 30, 2, 224, 176)]


def test_stored_values_of_the_worked_example(shared_dir, warehouse_path, run_cli, sql):
    path = fixture_path(shared_dir, "runs", "worked_example.json")
    assert run_cli(["ingest", path, "--warehouse", warehouse_path]).exit_code == 0
    assert sql(
        warehouse_path,
        "SELECT participant_id, success, error, has_signals FROM participants ORDER BY participant_id",
    ) == [(101, True, None, True), (102, False, "mock failure", False)]
    assert sql(warehouse_path, "SELECT item_index, item_name, pred, gt FROM items ORDER BY item_index") == [
        (0, "NoInterest", 2, 2),
        (1, "Depressed", 3, 1),
        (2, "Sleep", 1, 1),
        (3, "Tired", None, 0),
        (4, "Appetite", None, 0),
        (5, "Failure", None, 0),
        (6, "Concentrating", None, 0),
        (7, "Moving", None, 0),
    ]
    assert sql(
        warehouse_path,
        "SELECT llm_evidence_count, retrieval_similarity_mean, token_msp, "
        "consistency_samples, extra_signals FROM item_signals "
        "WHERE item_index = 0",
    ) == [
        (
            2,
            None,
            0.5,
            [0.0, 0.0, 0.0, 0.0, 0.0],
            '{"consistency_modal_score": 0, "consistency_modal_count": 5}',
        )
    ]
    assert sql(warehouse_path, "SELECT item_names, score_min, score_max FROM experiments") == [(ITEMS, 0, 3)]


def test_ingest_stdout_for_a_good_file(shared_dir, warehouse_path, run_cli):
    path = fixture_path(shared_dir, "runs", "worked_example.json")
    result = run_cli(["ingest", path, "--warehouse", warehouse_path])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (f"ingested {path}: run worked01: 1 experiment(s), 2 participants, 8 items\n")


def test_a_folder_ingests_its_json_files_sorted(shared_dir, warehouse_path, run_cli):
    folder = shared_dir / "fixtures" / "runs"
    result = run_cli(["ingest", folder, "--warehouse", warehouse_path])
    assert result.exit_code == 0
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == [
        f"ingested {p}" for p in good_files(shared_dir)
    ]


# --- bad fixtures --------------------------------------------------------------------------


def test_the_bad_fixture_list_is_complete(shared_dir):
    names = sorted(p.name for p in (shared_dir / "fixtures" / "bad").glob("*.json"))
    assert names == sorted(BAD_FILE_ERRORS)


@pytest.mark.parametrize("name", sorted(BAD_FILE_ERRORS))
def test_bad_fixture_is_refused_and_changes_nothing(name, shared_dir, seeded, run_cli, take_snapshot):
    path = fixture_path(shared_dir, "bad", name)
    before = take_snapshot(seeded)
    result = run_cli(["ingest", path, "--warehouse", seeded])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == f"error: {path}: {BAD_FILE_ERRORS[name]}\n"
    assert take_snapshot(seeded) == before


def test_good_files_in_the_same_command_still_ingest(shared_dir, warehouse_path, run_cli, sql):
    good_a = fixture_path(shared_dir, "runs", "worked_example.json")
    bad = fixture_path(shared_dir, "bad", "pred_out_of_range.json")
    good_b = fixture_path(shared_dir, "runs", "public_continuous.json")
    result = run_cli(["ingest", good_a, bad, good_b, "--warehouse", warehouse_path])
    assert result.exit_code == 1
    assert result.stdout == (
        f"ingested {good_a}: run worked01: 1 experiment(s), 2 participants, 8 items\n"
        f"ingested {good_b}: run public060: 1 experiment(s), 60 participants, 480 items\n"
    )
    assert result.stderr == f"error: {bad}: {BAD_FILE_ERRORS['pred_out_of_range.json']}\n"
    assert sql(warehouse_path, "SELECT run_id FROM runs ORDER BY run_id") == [("public060",), ("worked01",)]


# --- dedup and replace ---------------------------------------------------------------------


def test_same_content_again_is_unchanged(shared_dir, seeded, run_cli, take_snapshot, tmp_path):
    before = take_snapshot(seeded)
    path = fixture_path(shared_dir, "runs", "worked_example.json")
    copy_path = tmp_path / "copy.json"
    copy_path.write_bytes(path.read_bytes())
    result = run_cli(["ingest", path, copy_path, "--warehouse", seeded])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        f"unchanged {path}: run worked01 already ingested (same sha256)\n"
        f"unchanged {copy_path}: run worked01 already ingested (same sha256)\n"
    )
    assert take_snapshot(seeded) == before


def _worked_with_third_participant(worked: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(worked)
    rows = doc["experiments"][0]["results"]["results"]
    extra = copy.deepcopy(rows[0])
    extra["participant_id"] = 103
    extra["predicted_items"]["Moving"] = 3
    rows.append(extra)
    return doc


def test_other_content_with_the_same_run_id_is_refused(
    shared_dir, seeded, run_cli, worked, take_snapshot, tmp_path
):
    before = take_snapshot(seeded)
    new = write(tmp_path, "worked_v2.json", _worked_with_third_participant(worked))
    result = run_cli(["ingest", new, "--warehouse", seeded])
    assert (result.exit_code, result.stdout) == (1, "")
    old = fixture_path(shared_dir, "runs", "worked_example.json")
    assert result.stderr == (
        f"error: {new}: run_id worked01 is already ingested from {old} "
        "with other content; riskcov ingest --replace swaps it\n"
    )
    assert take_snapshot(seeded) == before


def test_replace_swaps_the_run(seeded, run_cli, worked, tmp_path, sql):
    new = write(tmp_path, "worked_v2.json", _worked_with_third_participant(worked))
    result = run_cli(["ingest", "--replace", new, "--warehouse", seeded])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (f"replaced {new}: run worked01: 1 experiment(s), 3 participants, 16 items\n")
    assert sql(seeded, "SELECT run_id, source_path FROM runs") == [("worked01", str(new))]
    assert sql(seeded, "SELECT count(*) FROM experiments") == [(1,)]
    assert sql(seeded, COUNTS_SQL, ["worked01"]) == [
        (0, "few_shot", 3, 1, 16, 7, 2 + 3 + 1 + 2 + 3 + 1 + 3, 4 + 4, 16)
    ]
    # nothing left over from the old experiment
    for table in ("participants", "items", "item_signals"):
        assert sql(
            seeded,
            f"SELECT count(*) FROM {table} WHERE experiment_id NOT IN "
            "(SELECT experiment_id FROM experiments)",
        ) == [(0,)]


def test_replace_that_fails_midway_keeps_the_old_run(
    seeded, run_cli, worked, tmp_path, take_snapshot, monkeypatch
):
    before = take_snapshot(seeded)
    real = riskcov.ingest._insert_experiments

    def insert_then_fail(con, run):
        real(con, run)
        raise InputError("simulated failure after the rows went in")

    monkeypatch.setattr(riskcov.ingest, "_insert_experiments", insert_then_fail)
    new = write(tmp_path, "worked_v2.json", _worked_with_third_participant(worked))
    result = run_cli(["ingest", "--replace", new, "--warehouse", seeded])
    assert result.exit_code == 1
    assert result.stderr == (f"error: {new}: run worked01: simulated failure after the rows went in\n")
    assert take_snapshot(seeded) == before


# --- programmatic bad variants -------------------------------------------------------------


def _p0(doc: dict[str, Any]) -> dict[str, Any]:
    """The first participant of the first experiment."""
    return doc["experiments"][0]["results"]["results"][0]


def _set(path: list[Any], value: Any) -> Any:
    def edit(doc: dict[str, Any]) -> None:
        target: Any = _p0(doc)
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


def _delete(path: list[Any]) -> Any:
    def edit(doc: dict[str, Any]) -> None:
        target: Any = _p0(doc)
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return edit


def _top(key: str, value: Any) -> Any:
    def edit(doc: dict[str, Any]) -> None:
        if value is _MISSING:
            del doc[key]
        else:
            doc[key] = value

    return edit


_MISSING = object()

W = "experiment few_shot: participant 101: "
WORKED_VARIANTS = {
    "bool_gt": (
        _set(["ground_truth_items", "Depressed"], True),
        W + "ground_truth_items.Depressed = true is a boolean, not a number",
    ),
    "bool_pred": (
        _set(["predicted_items", "Sleep"], False),
        W + "predicted_items.Sleep = false is a boolean, not a number",
    ),
    "bool_signal": (
        _set(["item_signals", "Tired", "token_msp"], True),
        W + "item_signals.Tired.token_msp = true is a boolean, not a number",
    ),
    "fractional_pred": (
        _set(["predicted_items", "NoInterest"], 1.5),
        W + "predicted_items.NoInterest = 1.5 is not 0..3 or null",
    ),
    "negative_gt": (
        _set(["ground_truth_items", "Moving"], -1),
        W + "ground_truth_items.Moving = -1 is not 0..3",
    ),
    "string_signal": (
        _set(["item_signals", "Sleep", "retrieval_similarity_mean"], "0.5"),
        W + 'item_signals.Sleep.retrieval_similarity_mean = "0.5" is not a number or null',
    ),
    "fractional_count": (
        _set(["item_signals", "Sleep", "llm_evidence_count"], 2.5),
        W + "item_signals.Sleep.llm_evidence_count = 2.5 is not an integer or null",
    ),
    "bad_source": (
        _set(["item_signals", "Sleep", "evidence_source"], "llm+keyword"),
        W + 'item_signals.Sleep.evidence_source = "llm+keyword" is not "llm", "keyword", "both" or null',
    ),
    "bad_sample": (
        _set(["item_signals", "Sleep", "consistency_samples"], [0, "x", 1]),
        W + 'item_signals.Sleep.consistency_samples[1] = "x" is not a number or null',
    ),
    "missing_pred_item": (_delete(["predicted_items", "Sleep"]), W + "predicted_items.Sleep is missing"),
    "missing_gt_item": (
        _delete(["ground_truth_items", "Moving"]),
        W + "ground_truth_items.Moving is missing",
    ),
    "unknown_item": (
        _set(["predicted_items", "Energy"], 1),
        W + "predicted_items.Energy is not a PHQ-8 item",
    ),
    "missing_predictions": (
        _delete(["predicted_items"]),
        W + "predicted_items is missing; an object of the 8 items is required",
    ),
    "signals_not_object": (
        _set(["item_signals", "Sleep"], [1, 2]),
        W + "item_signals.Sleep = a list is not an object",
    ),
    "success_missing": (_delete(["success"]), W + "success = missing is not true or false"),
    "missing_participant_id": (
        _delete(["participant_id"]),
        "experiment few_shot: results.results[0]: participant_id is missing",
    ),
    "string_participant_id": (
        _set(["participant_id"], "abc"),
        'experiment few_shot: results.results[0]: participant_id = "abc" is not an integer',
    ),
    "bool_participant_id": (
        _set(["participant_id"], True),
        "experiment few_shot: results.results[0]: participant_id = true is not an integer",
    ),
    "huge_participant_id": (
        _set(["participant_id"], 2**70),
        "experiment few_shot: results.results[0]: participant_id = "
        "1180591620717411303424 is outside the 64-bit integer range",
    ),
    "huge_count": (
        _set(["item_signals", "Sleep", "llm_evidence_count"], 2**63),
        W + "item_signals.Sleep.llm_evidence_count = 9223372036854775808 is outside the 64-bit integer range",
    ),
    "no_experiments": (_top("experiments", []), "experiments is empty; at least one experiment is required"),
    "experiments_missing": (
        _top("experiments", _MISSING),
        "experiments is missing; at least one experiment is required",
    ),
    "run_id_missing": (
        _top("run_metadata", {"timestamp": "x"}),
        "run_metadata.run_id = null is not a non-empty string",
    ),
    "top_level_list": (None, "the top level is a list, not an object"),
}


@pytest.mark.parametrize("case", sorted(WORKED_VARIANTS))
def test_bad_variant_is_refused(case, seeded, run_cli, worked, tmp_path, take_snapshot):
    edit, message = WORKED_VARIANTS[case]
    doc: Any = copy.deepcopy(worked)
    if edit is None:
        doc = [doc]
    else:
        edit(doc)
    path = write(tmp_path, f"{case}.json", doc)
    before = take_snapshot(seeded)
    result = run_cli(["ingest", path, "--warehouse", seeded])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"error: {path}: {message}\n"
    assert take_snapshot(seeded) == before


def _text_variant(shared_dir: Path, tmp_path: Path, old: str, new: str) -> Path:
    text = fixture_path(shared_dir, "runs", "worked_example.json").read_text()
    assert old in text
    path = tmp_path / "variant.json"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            '"token_msp": 0.5',
            '"token_msp": NaN',
            W + "item_signals.NoInterest.token_msp = NaN is not valid strict JSON",
        ),
        (
            '"token_pe": 0.0',
            '"token_pe": -Infinity',
            W + "item_signals.NoInterest.token_pe = -Infinity is not valid strict JSON",
        ),
        (
            '"NoInterest": 2',
            '"NoInterest": Infinity',
            W + "predicted_items.NoInterest = Infinity is not valid strict JSON",
        ),
        ('"Tired": 0', '"Tired": NaN', W + "ground_truth_items.Tired = NaN is not valid strict JSON"),
        (
            '"consistency_modal_score": 0',
            '"consistency_modal_score": NaN',
            W + "item_signals.NoInterest.consistency_modal_score = NaN is not valid strict JSON",
        ),
        (
            '"consistency_temperature": 0.3',
            '"consistency_temperature": Infinity',
            "experiment few_shot: provenance.consistency_temperature = Infinity is not valid strict JSON",
        ),
        ('"git_dirty": false', '"git_dirty": NaN', "run_metadata.git_dirty = NaN is not valid strict JSON"),
        (
            '"token_msp": 0.5',
            '"token_msp": 1e400',
            W + "item_signals.NoInterest.token_msp = inf does not fit a finite double",
        ),
        (
            '"consistency_samples": [\n                  0,',
            '"consistency_samples": [\n 1e999,',
            W + "item_signals.NoInterest.consistency_samples[0] = inf does not fit a finite double",
        ),
        # strict JSON everywhere, also in fields riskcov does not store
        (
            '"mae_available": 0.666667',
            '"mae_available": NaN',
            "experiment few_shot, participant 101: mae_available = NaN is not valid strict JSON",
        ),
        (
            '"model": "synthetic-model",\n        "total',
            '"model": Infinity,\n        "total',
            "experiments[0].results.model = Infinity is not valid strict JSON",
        ),
        (
            '"mae_available": 0.666667',
            '"mae_available": 0.666667,,',
            "invalid JSON at line 38 column 39: Expecting property name enclosed in double quotes",
        ),
    ],
)
def test_non_finite_and_malformed_literals_are_refused(
    old, new, message, shared_dir, seeded, run_cli, tmp_path, take_snapshot
):
    path = _text_variant(shared_dir, tmp_path, old, new)
    before = take_snapshot(seeded)
    result = run_cli(["ingest", path, "--warehouse", seeded])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"error: {path}: {message}\n"
    assert take_snapshot(seeded) == before


def test_not_utf8_is_refused(seeded, run_cli, tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"run_metadata": {"run_id": "caf\xe9"}}')
    result = run_cli(["ingest", path, "--warehouse", seeded])
    assert result.exit_code == 1
    assert result.stderr == f"error: {path}: not UTF-8 text (invalid continuation byte)\n"


def test_missing_file_is_refused(seeded, run_cli, tmp_path):
    path = tmp_path / "absent.json"
    result = run_cli(["ingest", path, "--warehouse", seeded])
    assert result.exit_code == 1
    assert result.stderr == f"error: {path}: no such file\n"


def test_integral_float_pred_is_accepted(warehouse_path, run_cli, worked, tmp_path, sql):
    doc = copy.deepcopy(worked)
    _p0(doc)["predicted_items"]["NoInterest"] = 2.0
    _p0(doc)["ground_truth_items"]["Moving"] = 3.0
    _p0(doc)["item_signals"]["Sleep"]["llm_evidence_count"] = 4.0
    path = write(tmp_path, "floats.json", doc)
    result = run_cli(["ingest", path, "--warehouse", warehouse_path])
    assert (result.exit_code, result.stderr) == (0, "")
    rows = sql(
        warehouse_path,
        "SELECT item_name, pred, gt FROM items "
        "WHERE item_name IN ('NoInterest', 'Moving') ORDER BY item_index",
    )
    assert rows == [("NoInterest", 2, 2), ("Moving", None, 3)]
    assert sql(warehouse_path, "SELECT llm_evidence_count FROM item_signals WHERE item_index = 2") == [(4,)]


def test_duplicate_participant_ids_are_refused(public30, seeded, run_cli, tmp_path, take_snapshot):
    rows = public30["experiments"][0]["results"]["results"]
    rows[5]["participant_id"] = rows[2]["participant_id"]
    path = write(tmp_path, "dup.json", public30)
    before = take_snapshot(seeded)
    result = run_cli(["ingest", path, "--warehouse", seeded])
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {path}: experiment zero_shot: participant "
        f"{rows[2]['participant_id']}: participant_id is duplicated in this "
        "experiment\n"
    )
    assert take_snapshot(seeded) == before


def test_duplicate_ids_across_experiments_are_fine(public30, warehouse_path, run_cli, tmp_path):
    # both experiments share participant ids 1000..1029: that is how paired runs look
    path = write(tmp_path, "p30.json", public30)
    assert run_cli(["ingest", path, "--warehouse", warehouse_path]).exit_code == 0


def test_string_numeric_participant_id_is_read_as_integer(worked, warehouse_path, run_cli, tmp_path, sql):
    _p0(worked)["participant_id"] = "101"
    path = write(tmp_path, "strid.json", worked)
    assert run_cli(["ingest", path, "--warehouse", warehouse_path]).exit_code == 0
    assert sql(warehouse_path, "SELECT participant_id FROM participants ORDER BY 1") == [(101,), (102,)]


@pytest.mark.parametrize(("value", "what"), [({"a": 1}, "an object"), ("rows", '"rows"'), (None, "missing")])
def test_results_not_a_list_is_refused(value, what, public30, seeded, run_cli, tmp_path):
    public30["experiments"][1]["results"]["results"] = value
    path = write(tmp_path, "notlist.json", public30)
    result = run_cli(["ingest", path, "--warehouse", seeded])
    assert result.exit_code == 1
    assert result.stderr == (f"error: {path}: experiment few_shot: results.results is {what}, not a list\n")


def test_results_object_not_an_object_is_refused(public30, seeded, run_cli, tmp_path):
    public30["experiments"][0]["results"] = []
    path = write(tmp_path, "resultslist.json", public30)
    result = run_cli(["ingest", path, "--warehouse", seeded])
    assert result.exit_code == 1
    # the mode comes from provenance, so the experiment is still named by it
    assert result.stderr == (f"error: {path}: experiment zero_shot: results is a list, not an object\n")


def test_two_experiments_with_one_mode_are_named_by_index(public30, seeded, run_cli, tmp_path):
    for exp in public30["experiments"]:
        exp["provenance"]["mode"] = "few_shot"
    public30["experiments"][1]["results"]["results"][0]["predicted_items"]["Sleep"] = 9
    path = write(tmp_path, "samemode.json", public30)
    result = run_cli(["ingest", path, "--warehouse", seeded])
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {path}: experiment #1 (few_shot): participant 1000: "
        "predicted_items.Sleep = 9 is not 0..3 or null\n"
    )


def test_file_without_item_signals_ingests(worked, warehouse_path, run_cli, tmp_path, sql):
    for row in worked["experiments"][0]["results"]["results"]:
        row.pop("item_signals", None)
    path = write(tmp_path, "nosignals.json", worked)
    result = run_cli(["ingest", path, "--warehouse", warehouse_path])
    assert (result.exit_code, result.stderr) == (0, "")
    assert sql(
        warehouse_path,
        "SELECT participant_id, success, has_signals FROM participants ORDER BY participant_id",
    ) == [(101, True, False), (102, False, False)]
    assert sql(warehouse_path, "SELECT count(*) FROM items") == [(8,)]
    assert sql(warehouse_path, "SELECT count(*) FROM item_signals") == [(0,)]


def test_mode_falls_back_to_results_mode(worked, warehouse_path, run_cli, tmp_path, sql):
    del worked["experiments"][0]["provenance"]["mode"]
    worked["experiments"][0]["results"]["mode"] = "zero_shot"
    path = write(tmp_path, "mode.json", worked)
    assert run_cli(["ingest", path, "--warehouse", warehouse_path]).exit_code == 0
    assert sql(warehouse_path, "SELECT mode FROM experiments") == [("zero_shot",)]


def test_unknown_signal_keys_are_kept(worked, warehouse_path, run_cli, tmp_path, sql):
    _p0(worked)["item_signals"]["Sleep"]["my_new_signal"] = {"a": [1, 2.5, None]}
    path = write(tmp_path, "extra.json", worked)
    assert run_cli(["ingest", path, "--warehouse", warehouse_path]).exit_code == 0
    rows = sql(
        warehouse_path,
        "SELECT extra_signals, list_contains(signal_keys, 'my_new_signal')"
        " FROM item_signals WHERE item_index = 2",
    )
    assert rows == [
        (
            '{"consistency_modal_score": 0, "consistency_modal_count": 5, '
            '"my_new_signal": {"a": [1, 2.5, null]}}',
            True,
        )
    ]


def test_example_run_ingests(warehouse_path, run_cli, sql):
    example = Path(__file__).resolve().parents[2] / "examples" / "example_run.json"
    doc = json.loads(example.read_text())
    result = run_cli(["ingest", example, "--warehouse", warehouse_path])
    assert (result.exit_code, result.stderr) == (0, "")
    run_id = doc["run_metadata"]["run_id"]
    assert sql(warehouse_path, COUNTS_SQL, [run_id]) == expected_counts(doc)
