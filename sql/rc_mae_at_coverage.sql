-- MAE@coverage: the selective risk of the first working point reaching each requested
-- coverage (item-step: the point k* = ceil(c * N)). No row where the curve never gets there.
CREATE OR REPLACE MACRO rc_mae_at_coverage(points, grid, estimator) AS TABLE
SELECT p.series, p.replicate, g.requested,
       arg_min(CASE WHEN estimator = 'item-step' THEN ceil(g.requested * p.n_total) / p.n_total
                    ELSE p.coverage END, p.plateau) AS achieved,
       arg_min(p.selective_risk, p.plateau) AS value
FROM query_table(points) AS p
JOIN query_table(grid) AS g
  ON CASE WHEN estimator = 'item-step' THEN p.k_cum = ceil(g.requested * p.n_total)
          ELSE g.requested <= p.coverage AND g.requested > coalesce(p.coverage_prev, 0.0) END
GROUP BY p.series, p.replicate, g.requested;
