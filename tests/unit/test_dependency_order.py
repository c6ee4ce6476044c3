"""The order sql/'s objects are created in (evaluation/prepared_warehouse._dependency_order):
each after every object its SQL names as a whole word, comments aside, in file order otherwise."""

from __future__ import annotations

import re

import pytest

from riskcov.errors import RiskcovError
from riskcov.evaluation.prepared_warehouse import _dependency_order
from riskcov.resources import resource_dir


def _names(objects):
    return [n for n, _ in _dependency_order(objects)]


def test_an_object_comes_after_the_objects_it_names_and_only_those():
    objects = [
        ("rc_b", "SELECT * FROM rc_a_of, rc_c"),  # rc_a_of is not rc_a: a longer word
        ("rc_a", "SELECT 1 -- rc_c named in a comment only"),
        ("rc_c", "SELECT rc_a(x)"),
        ("rc_d", "SELECT 2"),
    ]
    assert _names(objects) == ["rc_a", "rc_d", "rc_c", "rc_b"]


def test_a_cycle_is_refused_naming_its_objects():
    with pytest.raises(RiskcovError, match="circular references between x, y"):
        _dependency_order([("x", "SELECT y"), ("y", "SELECT x"), ("z", "SELECT 1")])


def test_the_shipped_objects_each_follow_what_they_name():
    # the oracle: a search for each other object's name as a whole word, comments removed
    objects = [(p.stem, p.read_text()) for p in sorted(resource_dir("sql").glob("*.sql"))]
    order = _names(objects)
    position = {n: i for i, n in enumerate(order)}
    assert sorted(order) == sorted(n for n, _ in objects)
    for name, sql in objects:
        code = re.sub(r"--[^\n]*", "", sql)
        for other, _ in objects:
            if other != name and re.search(rf"\b{other}\b", code):
                assert position[other] < position[name], (other, name)
