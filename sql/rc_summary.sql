-- Every scalar of docs/metrics.md that is not a grid lookup, per series and replicate (rc_summary_of,
-- which says what), from the scored relation: its loss counts (rc_loss_counts) are what the
-- oracle reads. `evaluate` builds those once per evaluation and calls rc_summary_of per chunk.
CREATE OR REPLACE MACRO rc_summary(scored, samples, points, totals, harmonic, area_c, estimator)
AS TABLE
WITH loss_counts AS (
    FROM rc_loss_counts(scored)
)
FROM rc_summary_of('loss_counts', samples, points, totals, harmonic, area_c, estimator);
