-- MAE@coverage c: the selective risk of the first working point whose coverage >= c, i.e.
-- the point whose predecessor is below c (item-step: the point k* = ceil(c * N)), with that
-- point's coverage. No row for a (series, replicate) whose curve never gets there. One
-- requested coverage per call: a filter over the points, no join, no aggregate.
CREATE OR REPLACE MACRO rc_mae_at_coverage(points, c, estimator) AS TABLE
SELECT series, replicate, CAST(c AS DOUBLE) AS requested,
       CASE WHEN estimator = 'item-step' THEN ceil(CAST(c AS DOUBLE) * n_total) / n_total
            ELSE coverage END AS achieved,
       selective_risk AS value
FROM query_table(points)
WHERE CASE WHEN estimator = 'item-step' THEN k_cum = ceil(CAST(c AS DOUBLE) * n_total)
           ELSE coverage >= CAST(c AS DOUBLE)
                AND coalesce(coverage_prev, 0.0) < CAST(c AS DOUBLE) END;
