"""Risk control and OOD (docs/risk-control.md): certified thresholds, violation rates, OOD
acceptance and the method comparison.

The arithmetic is numpy on arrays: `bounds` holds the binomial tail and the three p-values,
`rules` the certified, uncertified and conformal (CRC) threshold rules and their test-side
application. The commands read and write the warehouse through DuckDB: `experiments` resolves
the inputs to per-sample experiments, `suite`, `ood_suite` and `compare` are `riskcov
risk-control`, `riskcov ood` and `riskcov compare`, `store` keeps their ledger and `render`
their console, markdown and CSV forms.
"""
