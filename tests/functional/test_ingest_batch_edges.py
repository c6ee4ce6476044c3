"""The batches' byte ranges at awkward places (formats/phq8_json): strings holding multi-byte
UTF-8 (2, 3 and 4 bytes), escapes and the list's own punctuation (`"]},{`), a pretty-printed
file (whitespace and newlines between participants), decoded on the ingest's thread and by the
child processes in batches of about one participant: the stored rows are those of the file
parsed whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_ingest_batches import TINY, WHOLE, _ingest, _rows
from test_ingest_batches import batch_size as batch_size  # the fixture

TRICKY = ['é"]},{\\', "☃ \u2028 \\u00e9", '𝄞 [{"participant_id": 1}]', "\t\n\r \x7f ü" * 40]


def _tricky_run(shared_dir: Path, folder: Path, indent: int | None, strings: list[str]) -> tuple[Path, int]:
    """public30 with `strings` as its failed participants' error texts, written as UTF-8."""
    doc: dict[str, Any] = json.loads((shared_dir / "fixtures" / "runs" / "public30.json").read_text())
    failed = 0
    for experiment in doc["experiments"]:
        for person in experiment["results"]["results"]:
            if not person["success"]:
                person["error"] = strings[failed % len(strings)]
                failed += 1
    path = folder / "run.json"
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=indent), encoding="utf-8")
    return path, failed


@pytest.mark.parametrize("indent", [None, 3])
def test_batches_cut_between_participants_whatever_their_strings(
    shared_dir, tmp_path, run_cli, sql, batch_size, indent
):
    path, failed = _tricky_run(shared_dir, tmp_path, indent, TRICKY)
    assert failed >= 2
    whole, tiny = tmp_path / "whole.duckdb", tmp_path / "tiny.duckdb"
    first = _ingest(run_cli, batch_size, WHOLE, path, whole)
    assert first.exit_code == 0, first.stderr
    second = _ingest(run_cli, batch_size, TINY, path, tiny)
    assert second.exit_code == 0, second.stderr
    assert _rows(sql, tiny) == _rows(sql, whole)
    errors = sql(whole, "SELECT count(*) FROM participants WHERE error IN (SELECT unnest(?))", [TRICKY])
    assert errors == [(failed,)]  # the strings themselves, decoded


# typed.py counts ':' bytes, which holds only without backslash escapes, so it refuses them
ESCAPE_REFUSED = pytest.mark.xfail(strict=True, reason="typed.py refuses a batch with an escape, by design")


@pytest.mark.parametrize("text", ["multi-byte é ☃ 𝄞", pytest.param('a quote " inside', marks=ESCAPE_REFUSED)])
def test_a_string_with_an_escape_keeps_the_batches(shared_dir, tmp_path, run_cli, batch_size, text):
    # a string with a JSON escape (\", \\, \n, \uXXXX) in any participant makes a batch
    # refused and the whole file go through the full checker: the same rows, but a large
    # file's fast path is lost for, e.g., an error text quoting a name
    path, _ = _tricky_run(shared_dir, tmp_path, None, [text])
    done = _ingest(run_cli, batch_size, TINY, path, tmp_path / "w.duckdb")
    assert done.exit_code == 0, done.stderr
    assert (batch_size["inserts"] > 30, batch_size["fallbacks"]) == (True, 0)
