-- Every scalar of docs/metrics.md that is not a grid lookup, per series and replicate: rc_metrics'
-- Cmax and areas with rc_oracle_of's optimal areas and the excess metrics (eaurc = aurc -
-- aurc_optimal, eaugrc likewise; eaurc_population = aurc - aurc_optimal_population,
-- docs/metrics.md, NULL unless the losses are 0/1), defined here once for `evaluate` and `v_metrics`.
-- The arguments are rc_oracle_of's (`losses`: rc_loss_counts, built once per evaluation) and
-- rc_metrics'; a series reaches its population's oracle through totals. rc_summary composes
-- it from the scored relation. The oracle's runs are rc_loss_runs'; the rest is
-- rc_summary_runs', which the sort-once path of `evaluate` feeds with the same runs taken
-- without a join (metrics/plateau_stream.py).
CREATE OR REPLACE MACRO rc_summary_of(losses, samples, points, totals, harmonic, area_c, estimator)
AS TABLE
WITH runs AS (
    FROM rc_loss_runs(losses, samples)
)
FROM rc_summary_runs(losses, 'runs', points, totals, harmonic, area_c, estimator);
