"""The storage layer: the warehouse file and its connection, migrations, the metric
tables, the run listing and history, export and the BI snapshot, and the files riskcov reads
and writes (docs/architecture.md)."""
