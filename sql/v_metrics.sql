-- Point metrics (default estimator, AURC@0.5) of every experiment x supported CSF x loss,
-- with its run and mode: what `riskcov evaluate --bootstrap-resamples 0` reports, as SQL;
-- prob_* is the calibration of a per-sample file's `prob` (SPEC §10), per experiment.
CREATE OR REPLACE VIEW v_metrics AS
SELECT e.run_id, r."timestamp" AS run_timestamp, e.experiment_id, e.mode,
       e.method, e.seed, e.split, e.domain,
       m.series.csf AS csf, m.series.loss AS loss,
       m.cmax, m.aurc_full, m.augrc_full, m.aurc_optimal, m.augrc_optimal, m.eaurc, m.eaugrc,
       0.5 AS area_coverage, m.aurc_at_c, m.augrc_at_c, m.n_points,
       m.aurc_optimal_population, m.eaurc_population,
       pc.ece AS prob_ece, pc.nll AS prob_nll, pc.brier AS prob_brier
FROM rc_summary('v_scored', 'v_unit_samples', 'v_rc_points', 'v_rc_totals', 'v_harmonic', 0.5,
                'plateau-trapezoid') AS m
JOIN experiments AS e ON e.experiment_id = m.series.experiment_id
JOIN runs AS r USING (run_id)
LEFT JOIN v_prob_calibration AS pc USING (experiment_id);
