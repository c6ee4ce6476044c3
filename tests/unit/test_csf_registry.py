"""The CSF registry's check when a warehouse installs its SQL objects (scoring.csf.check_registry)."""

from __future__ import annotations

import duckdb
import pytest

from riskcov.errors import RiskcovError
from riskcov.scoring import csf


def test_every_registry_expression_parses():
    csf.check_registry(duckdb.connect())


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        (
            "s.token_msp +",
            'internal error: CSF broken: its SQL does not parse: Parser Error: syntax error at or near "+"',
        ),
        ("s.token_msp; SELECT 1", "internal error: CSF broken: its SQL is not one expression"),
    ],
)
def test_a_registry_typo_names_the_csf(monkeypatch, expression, message):
    monkeypatch.setattr(csf, "BASE", {**csf.BASE, "broken": csf.Csf("broken", expression)})
    with pytest.raises(RiskcovError) as caught:
        csf.check_registry(duckdb.connect())
    assert str(caught.value) == message


def test_the_columns_view_searches_each_signal_key_once_per_item():
    """internal.v_csf_columns names a key in many CSFs' problems; its join's signal side
    computes each key's list_contains once, which every problem reads."""
    from riskcov.scoring.confidences import confidences_view_sql

    columns_view = confidences_view_sql().split(";\n", 1)[1]
    keys = {k for c in csf.BASE.values() for k in (*c.required, *c.null_is_error)}
    assert columns_view.count("list_contains(") == len(keys)
    for key in keys:
        assert f"list_contains(signal_keys, '{key}') AS \"has:{key}\"" in columns_view
