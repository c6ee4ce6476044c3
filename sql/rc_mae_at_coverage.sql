-- MAE@coverage at one requested coverage c: rc_mae_at_coverages' rows for [c].
CREATE OR REPLACE MACRO rc_mae_at_coverage(points, c, estimator) AS TABLE
FROM rc_mae_at_coverages(points, [c], estimator);
