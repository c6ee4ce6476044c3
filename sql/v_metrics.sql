-- Point metrics (default estimator, AURC@0.5) of every experiment x supported CSF x loss,
-- with its run and mode: what `riskcov evaluate --bootstrap-resamples 0` reports, as SQL.
CREATE OR REPLACE VIEW v_metrics AS
SELECT e.run_id, r."timestamp" AS run_timestamp, e.experiment_id, e.mode,
       m.series.csf AS csf, m.series.loss AS loss,
       m.cmax, m.aurc_full, m.augrc_full,
       o.aurc_optimal, o.augrc_optimal,
       m.aurc_full - o.aurc_optimal AS eaurc,
       m.augrc_full - o.augrc_optimal AS eaugrc,
       0.5 AS area_coverage, m.aurc_at_c, m.augrc_at_c, m.n_points
FROM rc_metrics('v_rc_points', 'v_rc_totals', 0.5, 'plateau-trapezoid') AS m
JOIN rc_oracle('v_scored', 'v_unit_samples', 'v_rc_totals', 'v_harmonic',
               'plateau-trapezoid') AS o
  ON o.population = {'experiment_id': m.series.experiment_id, 'loss': m.series.loss}
 AND o.replicate = m.replicate
JOIN experiments AS e ON e.experiment_id = m.series.experiment_id
JOIN runs AS r USING (run_id);
