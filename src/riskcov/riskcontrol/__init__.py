"""Risk control (SPEC §10): p-values for "risk > alpha", threshold rules, violation summaries.

Pure functions on numpy arrays; reading the warehouse and the CLI live elsewhere.
`bounds` holds the binomial tail and the three p-values, `rules` the certified,
uncertified and conformal (CRC) threshold rules and their test-side application.
"""
