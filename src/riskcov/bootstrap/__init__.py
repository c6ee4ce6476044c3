"""Participant-cluster bootstrap (docs/metrics.md): draws as sample weights, and their intervals."""

from riskcov.bootstrap.draws import sample_chunks
from riskcov.bootstrap.intervals import interval, std_error

__all__ = ["interval", "sample_chunks", "std_error"]
