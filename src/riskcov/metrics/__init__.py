"""Metrics: the SQL macros of `sql/` run over an evaluation's scored items and sample weights."""
