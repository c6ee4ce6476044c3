"""riskcov: a DuckDB metrics warehouse for selective prediction.

From Python (docs/python.md): `riskcov.evaluate(data)` -> `riskcov.Evaluation`, and
`riskcov.Warehouse(path)`. They load on first use, so `riskcov --help` starts as quickly as
before.
"""

__version__ = "0.1.0"
__all__ = ["Evaluation", "Warehouse", "__version__", "evaluate"]

TYPE_CHECKING = False  # not typing's: `riskcov --help` need not import typing for this
if TYPE_CHECKING:
    from riskcov.api import Evaluation, Warehouse
    from riskcov.api import evaluate as evaluate


def __getattr__(name: str) -> object:
    if name == "evaluate":
        from riskcov.api import evaluate

        return evaluate
    if name in ("Evaluation", "Warehouse"):
        from riskcov import api

        return getattr(api, name)
    raise AttributeError(f"module 'riskcov' has no attribute {name!r}")
