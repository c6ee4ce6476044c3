"""The options the risk-control commands share (`risk-control`, `ood`, `compare`): which runs
and methods, the score column, and the certificate's settings. Each command's Options adds
its own fields to one of these."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from riskcov.errors import UsageError
from riskcov.riskcontrol.bounds import BOUNDS, check_level
from riskcov.riskcontrol.rules import PROCEDURES

# the order the commands' documents and stored options list their options in
RECORDED_ORDER = (
    "methods",
    "alphas",
    "alpha",
    "id_coverage",
    "thresholds",
    "delta",
    "bound",
    "procedure",
    "candidates",
    "cal_split",
    "test_split",
    "split",
    "violation_margin",
    "confidence",
    "split_seed",
    "risks",
    "group",
)


@dataclass
class InputOptions:
    """--input, --method and --confidence."""

    inputs: list[str] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    confidence: str | None = None

    def check_inputs(self) -> None:
        if not self.inputs:
            raise UsageError("--input is required (a per-sample run file or an ingested run_id)")

    def shared(self, kind: type[InputOptions]) -> dict[str, Any]:
        """The values of the fields of `kind` (a base class of this one), as keyword arguments.

        >>> CertificateOptions(inputs=["r"], delta=0.2).shared(InputOptions)
        {'inputs': ['r'], 'methods': [], 'confidence': None}
        """
        return {f.name: getattr(self, f.name) for f in fields(kind)}

    def recorded(self) -> dict[str, Any]:
        """The options as stored and reported (inputs are reported as run_ids apart), in
        RECORDED_ORDER.

        >>> CertificateOptions(confidence="c").recorded()["confidence"], list(InputOptions().recorded())
        ('c', ['methods', 'confidence'])
        """
        values = asdict(self)
        return {k: values[k] for k in sorted(values.keys() - {"inputs"}, key=RECORDED_ORDER.index)}


# --candidates G draws G coverage targets: past the cal split's samples they add no candidate,
# and 10**20 of them failed as an internal error (numpy's array size)
MAX_CANDIDATES = 1_000_000


@dataclass
class CertificateOptions(InputOptions):
    """The certificate's --delta, --bound, --procedure and --candidates, fit on --cal-split and
    measured on --test-split."""

    delta: float = 0.1
    bound: str = "hoeffding-bentkus"
    procedure: str = "fixed-sequence"
    candidates: int = 20
    cal_split: str = "cal"
    test_split: str = "test"

    def check_certificate(self) -> None:
        check_level("delta", self.delta)
        if self.bound not in BOUNDS:
            raise UsageError(f"--bound {self.bound}: expected one of {', '.join(BOUNDS)}")
        if self.procedure not in PROCEDURES:
            raise UsageError(f"--procedure {self.procedure}: expected one of {', '.join(PROCEDURES)}")
        if not 1 <= self.candidates <= MAX_CANDIDATES:  # more than the cal points adds none
            raise UsageError(
                f"--candidates must be a positive integer up to {MAX_CANDIDATES:,}, got {self.candidates}"
            )
        if self.cal_split == self.test_split:
            raise UsageError(f"--cal-split and --test-split are both {self.cal_split}; they must differ")
