"""The area estimators `--estimator` chooses between (docs/metrics-extended.md), apart from the
engine that computes them: the options' check reads them before numpy is imported."""

ESTIMATORS = ("plateau-trapezoid", "item-step", "item-trapezoid")
