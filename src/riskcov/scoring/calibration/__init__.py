"""Calibration of confidence scoring functions (docs/calibration.md).

`fit` fits temperature scaling, logistic/Platt, ridge and isotonic calibrators with numpy;
`artifact` reads and writes calibrator JSON in the reference evaluator's format; `to_sql`
turns a calibrator into one SQL expression the warehouse evaluates like any other CSF;
`metrics` reports ECE, NLL, Brier and AUROC through the warehouse's SQL macros.
"""
