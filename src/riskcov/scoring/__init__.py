"""Scoring: confidence scoring functions (CSFs) and the scored relation the metric macros read."""
