-- A working point's values (docs/metrics.md) from its running sums, in the order they come: `points`
-- names a relation (series, replicate, plateau, threshold, k, k_cum, l_cum, l_prev, n_total,
-- k_total, loss_scale) of points with the items k they add, their covered items k_cum and raw
-- loss l_cum, and their predecessor's raw loss l_prev (rc_running_exact, rc_running). Risks
-- are in loss units (raw / loss_scale); a point carries its predecessor's values, so areas
-- need no second window.
CREATE OR REPLACE MACRO rc_point_columns(points) AS TABLE
SELECT series, replicate, plateau, threshold,
       CAST(k_cum AS BIGINT) AS k_cum, l_cum, n_total, k_total,
       k_cum / n_total AS coverage,
       (l_cum / loss_scale) / k_cum AS selective_risk,
       (l_cum / loss_scale) / n_total AS generalized_risk,
       CASE WHEN k_cum > k THEN (k_cum - k) / n_total END AS coverage_prev,
       CASE WHEN k_cum > k THEN (l_prev / loss_scale) / (k_cum - k) END
           AS selective_risk_prev,
       CASE WHEN k_cum > k THEN (l_prev / loss_scale) / n_total END
           AS generalized_risk_prev,
       CAST(k_total AS DOUBLE) / n_total AS coverage_last
FROM query_table(points);
