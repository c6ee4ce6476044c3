"""The one registry of scalar metric keys: what the artifact reports, with a CI or a paired
delta, what the store keeps and what the console summary shows, in each one's order."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MetricKey:
    """A scalar of docs/formats.md METRICS. `field` is set when the number sits inside an object
    (aurc_at_c.value); `delta_rank` / `summary_rank` order the paired deltas and console rows
    (None: not shown there)."""

    key: str
    label: str
    field: str | None = None
    ci: bool = True
    delta_rank: int | None = None
    summary_rank: int | None = None


# in the artifact's CI order (docs/formats.md keys first, then the extra ones)
SCALARS = (
    MetricKey("aurc_full", "AURC", delta_rank=0, summary_rank=1),
    MetricKey("augrc_full", "AUGRC", delta_rank=1, summary_rank=2),
    MetricKey("aurc_at_c", "AURC@C", "value", delta_rank=3, summary_rank=3),
    MetricKey("augrc_at_c", "AUGRC@C", "value", delta_rank=4, summary_rank=4),
    MetricKey("cmax", "Cmax", delta_rank=2, summary_rank=0),
    MetricKey("aurc_optimal", "AURC optimal", summary_rank=5),
    MetricKey("augrc_optimal", "AUGRC optimal"),
    MetricKey("eaurc", "excess AURC", summary_rank=6),
    MetricKey("eaugrc", "excess AUGRC"),
    MetricKey("aurc_achievable", "AURC achievable", ci=False, summary_rank=7),
    # fd-shifts' conventions (docs/metrics.md); the population optimum is None unless losses are 0/1
    MetricKey("aurc_optimal_population", "AURC optimal (population)"),
    MetricKey("eaurc_population", "excess AURC (population)"),
    MetricKey("aurc_achievable_interpolated", "AURC achievable (interpolated)"),
)
WITH_CI = tuple(k for k in SCALARS if k.ci)
DELTAS = tuple(sorted((k for k in SCALARS if k.delta_rank is not None), key=lambda k: k.delta_rank or 0))
SUMMARY = tuple(sorted((k for k in SCALARS if k.summary_rank is not None), key=lambda k: k.summary_rank or 0))


def grid_key(c: float) -> str:
    """The artifact's key of a coverage (or alpha) value.

    >>> grid_key(0.1)
    '0.10'
    """
    return f"{c:.2f}"


def value_of(metrics: dict[str, object], key: MetricKey) -> object:
    """The number a key names in one METRICS object.

    >>> value_of({"aurc_at_c": {"value": 0.25}}, SCALARS[2])
    0.25
    """
    v = metrics[key.key]
    return v[key.field] if key.field and isinstance(v, dict) else v
