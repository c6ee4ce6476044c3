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
