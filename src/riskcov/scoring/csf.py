"""Confidence scoring functions (docs/metrics.md): one registry of SQL expressions over `item_signals`.

Each CSF is an expression in IEEE double with the operation order of its formula in
docs/metrics.md (literals cast to DOUBLE: DuckDB would read 0.4 as DECIMAL), because plateaus
are decided by exact equality.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from riskcov.errors import RiskcovError, UsageError

if TYPE_CHECKING:
    import duckdb


def _d(x: float) -> str:
    return f"CAST({x!r} AS DOUBLE)"


def has_signal(key: str) -> str:
    """SQL: the item's `item_signals AS s` row has the key (no row: false).

    coalesce(list_contains(...), false) rather than list_contains(coalesce(list, [])): DuckDB
    copied every item's key list to coalesce it, ~4 times the cost of the CSF itself.

    >>> has_signal("token_pe")
    "coalesce(list_contains(s.signal_keys, 'token_pe'), false)"
    """
    return f"coalesce(list_contains(s.signal_keys, '{key}'), false)"


def _clamp(x: str) -> str:
    return f"least(greatest({x}, {_d(0.0)}), {_d(1.0)})"


# e = clamp(min(llm, 3) / 3), a missing key counting 0; s = clamp(similarity mean), null -> 0
_E = _clamp(f"least(CAST(coalesce(s.llm_evidence_count, 0) AS DOUBLE), {_d(3.0)}) / {_d(3.0)}")
_S = _clamp(f"coalesce(s.retrieval_similarity_mean, {_d(0.0)})")
_V = (
    f"CASE WHEN s.verbalized_confidence IS NULL THEN {_d(0.5)} "
    f"ELSE {_clamp(f'(s.verbalized_confidence - {_d(1.0)}) / {_d(4.0)}')} END"
)
_LLM = "llm_evidence_count"
_SIM = "retrieval_similarity_mean"


@dataclass(frozen=True)
class Csf:
    """A CSF: its SQL over `item_signals AS s`, keys that must exist, signals whose null is an error."""

    name: str
    expression: str
    required: tuple[str, ...] = ()
    null_is_error: tuple[str, ...] = ()
    problem: str | None = None  # the whole problem SQL when required/null_is_error cannot say it

    def problem_sql(self) -> str:
        """SQL naming the first unusable signal of an item for this CSF (NULL when fine)."""
        if self.problem is not None:
            return self.problem
        whens = [f"WHEN NOT {has_signal(k)} THEN '{k} is missing'" for k in self.required]
        whens += [f"WHEN {has_signal(k)} AND s.{k} IS NULL THEN '{k} is null'" for k in self.null_is_error]
        # e.g. token_pe = -1 makes 1 / (1 + x) infinite: no ranking, no finite area
        whens.append(
            f"WHEN NOT isfinite({self.expression}) THEN 'the confidence is "
            f"' || CAST({self.expression} AS VARCHAR) || ', not a finite number'"
        )
        return f"CASE {' '.join(whens)} END"


def _base() -> dict[str, Csf]:
    llm = f"CAST(coalesce(s.{_LLM}, 0) AS DOUBLE)"
    one = _d(1.0)
    csfs = [
        Csf("llm", llm, (), (_LLM,)),
        Csf("total_evidence", llm, (), (_LLM,)),
        Csf("retrieval_similarity_mean", f"coalesce(s.{_SIM}, {_d(0.0)})", (_SIM,)),
        Csf(
            "retrieval_similarity_max",
            f"coalesce(s.retrieval_similarity_max, {_d(0.0)})",
            ("retrieval_similarity_max",),
        ),
        Csf("hybrid_evidence_similarity", f"{_d(0.5)} * {_E} + {_d(0.5)} * {_S}", (_SIM,), (_LLM,)),
        Csf("verbalized", _V, ("verbalized_confidence",)),
        Csf(
            "hybrid_verbalized",
            _clamp(f"{_d(0.4)} * {_V} + {_d(0.3)} * {_E} + {_d(0.3)} * {_S}"),
            ("verbalized_confidence", _SIM),
            (_LLM,),
        ),
        Csf("token_msp", _clamp("s.token_msp"), ("token_msp",), ("token_msp",)),
        Csf("token_pe", f"{one} / ({one} + s.token_pe)", ("token_pe",), ("token_pe",)),
        Csf("token_energy", _clamp("exp(s.token_energy)"), ("token_energy",), ("token_energy",)),
        Csf(
            "consistency",
            _clamp("s.consistency_modal_confidence"),
            ("consistency_modal_confidence",),
            ("consistency_modal_confidence",),
        ),
        Csf(
            "consistency_inverse_std",
            f"{one} / ({one} + s.consistency_score_std)",
            ("consistency_score_std",),
            ("consistency_score_std",),
        ),
        Csf(
            "hybrid_consistency",
            _clamp(
                f"{_d(0.4)} * {_clamp('s.consistency_modal_confidence')} + {_d(0.3)} * {_E}"
                f" + {_d(0.3)} * {_S}"
            ),
            ("consistency_modal_confidence", _SIM),
            ("consistency_modal_confidence", _LLM),
        ),
    ]
    return {c.name: c for c in csfs}


BASE = _base()
DEFAULT = ("llm", "total_evidence")
_SECONDARY = re.compile(r"^secondary:([a-z0-9_]+)\+([a-z0-9_]+):(average|product)\Z")


def _union(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(a + b))


def get(name: str, extra: Mapping[str, Csf] | None = None) -> Csf:
    """A base CSF, one of `extra` (the user's named CSFs), or a
    `secondary:<a>+<b>:<average|product>` combination of those.

    >>> get("secondary:verbalized+token_msp:product").required
    ('verbalized_confidence', 'token_msp')
    """
    known = {**BASE, **(extra or {})}
    if name in known:
        return known[name]
    m = _SECONDARY.match(name)
    if not m:
        raise UsageError(
            f"--confidence {name}: unknown confidence function; choose default, all, "
            f"one of {', '.join(sorted(known))}, or secondary:<a>+<b>:average|product"
        )
    a, b, how = m.groups()
    for part in (a, b):
        if part not in known:
            raise UsageError(f"--confidence {name}: {part} is not a base confidence function")
    ca, cb = known[a], known[b]
    expr = (
        f"(({ca.expression}) + ({cb.expression})) / {_d(2.0)}"
        if how == "average"
        else f"({ca.expression}) * ({cb.expression})"
    )
    problem = None
    if ca.problem is not None or cb.problem is not None:
        # a user CSF states its own problems: the first of either part's, then the result's
        finite = Csf(name, expr).problem_sql()
        problem = f"coalesce({ca.problem_sql()}, {cb.problem_sql()}, {finite})"
    return Csf(
        name,
        expr,
        _union(ca.required, cb.required),
        _union(ca.null_is_error, cb.null_is_error),
        problem,
    )


def select(selector: str) -> tuple[list[Csf], bool]:
    """The CSFs a --confidence selector names, and whether unsupported ones are skipped (all)."""
    if selector == "default":
        return [BASE[n] for n in DEFAULT], False
    if selector == "all":
        return [BASE[n] for n in sorted(BASE)], True
    return [get(selector)], False


def check_registry(con: duckdb.DuckDBPyConnection) -> None:
    """Parse every registry expression with DuckDB's parser (no query runs): a typo fails
    here, naming the CSF.

    Run when the warehouse (re)installs its SQL objects. DuckDB's parser, not sqlglot's: the
    engine that runs the expressions is the one that must read them, and an ingest into a new
    warehouse need not import sqlglot (slow to import) for it.
    """
    import duckdb

    for c in BASE.values():
        try:
            parsed = con.extract_statements(f"SELECT {c.expression}")
        except duckdb.ParserException as exc:
            first = str(exc).splitlines()[0]
            raise RiskcovError(f"internal error: CSF {c.name}: its SQL does not parse: {first}") from exc
        if len(parsed) != 1:
            raise RiskcovError(f"internal error: CSF {c.name}: its SQL is not one expression")


def sample_csf(name: str) -> Csf:
    """A per-sample run's score column as a CSF (its values are data, not SQL over signals)."""
    return Csf(name, f"sample_scores.csf = {name!r}")


def select_samples(selector: str, columns: list[list[str]]) -> tuple[list[Csf], bool]:
    """The CSFs a --confidence selector names among per-sample score columns (one list per
    input): `default` and `all` are every score column the inputs share; a name is one column.

    >>> [c.name for c in select_samples("all", [["msp", "energy"], ["msp"]])[0]]
    ['msp']
    """
    shared = sorted(set.intersection(*(set(c) for c in columns)))
    if selector in ("default", "all"):
        if not shared:
            raise UsageError(
                "--confidence: the inputs share no score column: "
                + " vs ".join(", ".join(c) for c in columns)
            )
        return [sample_csf(n) for n in shared], False
    if selector not in shared:
        raise UsageError(
            f"--confidence {selector}: not a score column of "
            f"{'every input' if len(columns) > 1 else 'this run'} (available: "
            f"{', '.join(shared) or 'none'}); confidence_<name> columns are CSF <name>"
        )
    return [sample_csf(selector)], False
