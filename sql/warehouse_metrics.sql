-- The rows of the table `metrics` (v_metrics) for the series of `scored`: rc_summary's point
-- metrics (default estimator, AURC@0.5) with each experiment's run and mode, and the
-- calibration of a per-sample file's `prob` (docs/metrics.md). The first five arguments are
-- rc_summary's; `series` (warehouse_series) names each integer series key's experiment, CSF
-- and loss.
CREATE OR REPLACE MACRO warehouse_metrics(scored, samples, points, totals, harmonic, series) AS TABLE
SELECT e.run_id, r."timestamp" AS run_timestamp, e.experiment_id, e.mode,
       e.method, e.seed, e.split, e.domain,
       k.csf, k.loss,
       m.cmax, m.aurc_full, m.augrc_full, m.aurc_optimal, m.augrc_optimal, m.eaurc, m.eaugrc,
       0.5 AS area_coverage, m.aurc_at_c, m.augrc_at_c, m.n_points,
       m.aurc_optimal_population, m.eaurc_population,
       pc.ece AS prob_ece, pc.nll AS prob_nll, pc.brier AS prob_brier
FROM rc_summary(scored, samples, points, totals, harmonic, 0.5, 'plateau-trapezoid') AS m
JOIN query_table(series) AS k ON k.series = m.series
JOIN experiments AS e ON e.experiment_id = k.experiment_id
JOIN runs AS r USING (run_id)
LEFT JOIN v_prob_calibration AS pc ON pc.experiment_id = k.experiment_id;
