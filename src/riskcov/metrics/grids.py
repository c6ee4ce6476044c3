"""The grids metrics are read at unless a command is given its own: coverages for MAE and
selective risk at a coverage, risk budgets (alpha) for Coverage@Risk, costs of a wrong accepted
unit for effective reliability. `riskcov evaluate` and
the portable queries of `riskcov sql` share them."""

DEFAULT_GRID = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
DEFAULT_ALPHAS = [0.01, 0.02, 0.05, 0.1, 0.15, 0.2]
DEFAULT_COSTS = [0.0, 0.5, 1.0, 2.0, 4.0]
# the coverage and alpha grids hold at most 101 values (two decimals in [0, 1]); costs are not
# bounded above, and 20,000 of them ran an evaluation of 41 participants past 2 minutes at 1.7 GB
MAX_COSTS = 100
