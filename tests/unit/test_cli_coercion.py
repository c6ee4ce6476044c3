"""riskcov.cli.coercion gives typer's own (pydantic) coercion's values, without pydantic for
plain ones."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

typer_coercion = pytest.importorskip("typer._coercion")  # typer >= 0.25 only

from typer.models import OptionInfo  # noqa: E402

from riskcov.cli import coercion  # noqa: E402

VALUES: dict[Any, list[Any]] = {
    str: ["x", "", " a ", "ünï", "-", "0.5"],
    int: ["0", "-0", "10000", "-5", "007", " 7", "1_000", "1e4", "12.0", "+3", 5, -(2**70), "9" * 19],
    float: [
        *("0.5", "-0", "-0.0", "1", "0.1", "2.675", "123456789012345.123456789012345"),
        *("1e-3", ".5", "5.", "inf", "nan", " 1.5", 3, -(2**60), 2**53, 0.25, -0.0),
    ],
    bool: [True, False],
    Path: ["a", "a/b", "a//b/", "./x", "/tmp", "-", "", Path("x")],
    list[str]: [("a", "b"), [], ("",)],
    list[Path]: [("a", "b/c"), ("a//b",), ()],
}


def _outcome(runtime: Any, value: Any) -> tuple[str, Any]:
    try:
        out = runtime._coerce_value(value, param=None, ctx=None)
    except Exception as exc:  # both sides must fail alike
        return "error", (type(exc).__name__, str(exc))
    if isinstance(out, float):
        return type(out).__name__, (repr(out), math.copysign(1.0, out))
    return type(out).__name__, repr(out)


@pytest.mark.parametrize("annotation", list(VALUES), ids=lambda a: getattr(a, "__name__", str(a)))
def test_plain_coercion_matches_typer(annotation: Any) -> None:
    descriptor = typer_coercion.resolve_type_descriptor(annotation, OptionInfo())
    theirs = typer_coercion.build_runtime_param(descriptor)
    ours = coercion._PlainParam(descriptor.parameter_info, annotation, descriptor=descriptor)
    got = {repr(v): _outcome(ours, v) for v in VALUES[annotation]}
    want = {repr(v): _outcome(theirs, v) for v in VALUES[annotation]}
    assert got == want


def test_plain_values_need_no_pydantic() -> None:
    assert [coercion.plain(int, "10000"), coercion.plain(float, "-0"), coercion.plain(str, "x")] == [
        10000,
        -0.0,
        "x",
    ]
    slow = [coercion.plain(int, v) for v in (" 7", "007", "1e4")] + [coercion.plain(float, "1e-3")]
    assert all(s is coercion._SLOW for s in slow)
