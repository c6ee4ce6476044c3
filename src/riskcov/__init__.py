"""riskcov: a DuckDB metrics warehouse for selective prediction."""

__version__ = "0.1.0"
