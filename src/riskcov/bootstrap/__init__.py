"""Participant-cluster bootstrap (docs/metrics.md): draws as sample weights, and their intervals."""

from riskcov.bootstrap.draws import Draws, draw_chunks, sample_chunks
from riskcov.bootstrap.intervals import interval, std_error

__all__ = ["Draws", "draw_chunks", "interval", "sample_chunks", "std_error"]
