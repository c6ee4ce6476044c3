"""Option values without pydantic where the answer is plain (issue 12: start-up).

typer >= 0.25 coerces every option that is not a boolean flag through a pydantic TypeAdapter
built on first use; importing pydantic and building the adapters is a large share of each
CLI call's start-up, although riskcov's options are only str, int, float, Path and lists of
those. Here the values whose result is beyond doubt (a str option given a str, a default already of its
type, an integer or decimal written plainly, a path that is already in normal form) are
coerced directly, to the same value and type as typer's own coercion returns; every other
value, and any annotation not listed, goes to typer's coercion (pydantic) unchanged, so its
acceptance and its error messages stay typer's. `tests/unit/test_cli_coercion.py` checks
both paths give the same values.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:  # typer >= 0.25: the runtime coercion through pydantic
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_path
    from typer.core import _TyperParameter
except ImportError:  # pragma: no cover - older typer coerces through click's types, no pydantic
    RuntimeParam = None  # type: ignore[assignment,misc]

_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?")
_SLOW = object()  # "not plain": typer's own coercion decides


def plain(annotation: Any, value: Any) -> Any:
    """`value` coerced to `annotation` when the result is beyond doubt, else _SLOW.

    >>> plain(int, "10000"), plain(float, "0.5"), plain(float, 3), plain(str, "x")
    (10000, 0.5, 3.0, 'x')
    >>> plain(int, "1e4") is _SLOW, plain(float, "1e-3") is _SLOW, plain(int, " 7") is _SLOW
    (True, True, True)
    """
    kind = type(value)
    if annotation is str or annotation is bool:
        return value if kind is annotation else _SLOW
    if annotation is int:
        if kind is int:
            return value
        return int(value) if kind is str and _INT.fullmatch(value) else _SLOW
    if annotation is float:
        if kind is float:
            return value
        if kind is int and abs(value) < 2**53:
            return float(value)
        return float(value) if kind is str and _DECIMAL.fullmatch(value) else _SLOW
    return _SLOW


if RuntimeParam is not None:

    @dataclass(frozen=True)
    class _PlainParam(RuntimeParam):
        """The plain values of one parameter (str, int, float, bool, Path, list of one of
        them); the others through the parameter's typer coercion (pydantic), built when such a value comes."""

        descriptor: Any

        def _item(self, annotation: Any, value: Any, param: Any, ctx: Any) -> Any:
            if annotation is Path:
                # pydantic's Path(value), then typer's own checks; only for a value in normal
                # form, so typer's messages, which quote the value, read the same
                if type(value) is not str or not value or value == "-" or str(Path(value)) != value:
                    return _SLOW
                info = self.parameter_info
                return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
            return plain(annotation, value)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            args: tuple[Any, ...] = getattr(self.annotation, "__args__", ())
            if getattr(self.annotation, "__origin__", None) is list and type(value) in (list, tuple):
                items = [self._item(args[0], v, param, ctx) for v in value]
                out: Any = _SLOW if any(i is _SLOW for i in items) else items
            else:
                out = self._item(self.annotation, value, param, ctx)
            if out is _SLOW:
                slow = build_runtime_param(self.descriptor)
                return slow._coerce_value(value, param=param, ctx=ctx)
            return out


_PLAIN = (str, int, float, bool, Path)


def _runtime_param(self: Any) -> Any:
    """_TyperParameter.get_runtime_param: the plain coercion where it applies."""
    if self._runtime_param is None:
        d = self.type_descriptor
        info = d.parameter_info
        leaf = getattr(d.annotation, "__args__", (None,))[0] if d.is_list else d.annotation
        simple = (
            leaf in _PLAIN
            and d.file_annotation is None
            and not d.is_choice
            and info.parser is None
            and info.path_type is None
            and info.min is None
            and info.max is None
        )
        self._runtime_param = (
            _PlainParam(info, d.annotation, descriptor=d) if simple else build_runtime_param(d)
        )
    return self._runtime_param


# the typer releases whose private coercion API this was written and tested against
TESTED = ((0, 25), (0, 29))


def install() -> None:
    """Use the plain coercion in typer's parameters (once, before the app runs); on a typer
    without the pydantic coercion, or one this was not tested with, typer's own stays."""
    import typer

    release = tuple(int(p) for p in re.findall(r"\d+", typer.__version__)[:2])
    if RuntimeParam is not None and TESTED[0] <= release <= TESTED[1]:
        _TyperParameter.get_runtime_param = _runtime_param  # type: ignore[method-assign]
