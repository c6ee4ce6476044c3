-- Scalar metrics of SPEC §4 per series and replicate, from working points (rc_points) and
-- totals (rc_totals), under an estimator:
--   plateau-trapezoid: trapezoid over (0, r1), (c1, r1), ... and (0, 0), (c1, g1), ...
--   item-trapezoid:    trapezoid between item points, no point at coverage 0
--   item-step:         AURC = sum(r_k) / N, AUGRC = sum(g_k) / N, step truncation
-- Sums are ordered by point so the result does not depend on thread scheduling.
CREATE OR REPLACE MACRO rc_metrics(points, totals, area_c, estimator) AS TABLE
WITH seg AS (
    SELECT p.*,
           CASE WHEN p.coverage_prev IS NULL AND estimator = 'item-trapezoid' THEN NULL
                ELSE coalesce(p.coverage_prev, 0.0) END AS c0,
           coalesce(p.selective_risk_prev, p.selective_risk) AS r0,
           coalesce(p.generalized_risk_prev, 0.0) AS g0,
           least(CAST(area_c AS DOUBLE), p.coverage_last) AS c_used,
           floor(least(CAST(area_c AS DOUBLE), p.coverage_last) * p.n_total) AS k_full
    FROM query_table(points) AS p
),
areas AS (
    SELECT series, replicate,
        sum(CASE WHEN estimator = 'item-step' THEN selective_risk
                 ELSE coalesce((coverage - c0) * (r0 + selective_risk) / 2.0, 0.0) END
            ORDER BY point) AS aurc_sum,
        sum(CASE WHEN estimator = 'item-step' THEN generalized_risk
                 ELSE coalesce((coverage - c0) * (g0 + generalized_risk) / 2.0, 0.0) END
            ORDER BY point) AS augrc_sum,
        sum(CASE
                WHEN estimator = 'item-step' THEN
                    CASE WHEN k_cum <= k_full THEN selective_risk
                         WHEN k_cum = k_full + 1 THEN (c_used * n_total - k_full) * selective_risk
                         ELSE 0.0 END
                WHEN c0 IS NULL THEN 0.0
                WHEN coverage <= c_used THEN (coverage - c0) * (r0 + selective_risk) / 2.0
                WHEN c0 < c_used THEN (c_used - c0)
                    * (r0 + (r0 + (c_used - c0) * (selective_risk - r0) / (coverage - c0))) / 2.0
                ELSE 0.0 END
            ORDER BY point) AS aurc_at_c_sum,
        sum(CASE
                WHEN estimator = 'item-step' THEN
                    CASE WHEN k_cum <= k_full THEN generalized_risk
                         WHEN k_cum = k_full + 1 THEN (c_used * n_total - k_full) * generalized_risk
                         ELSE 0.0 END
                WHEN c0 IS NULL THEN 0.0
                WHEN coverage <= c_used THEN (coverage - c0) * (g0 + generalized_risk) / 2.0
                WHEN c0 < c_used THEN (c_used - c0)
                    * (g0 + (g0 + (c_used - c0) * (generalized_risk - g0) / (coverage - c0))) / 2.0
                ELSE 0.0 END
            ORDER BY point) AS augrc_at_c_sum,
        count(*) AS n_points
    FROM seg
    GROUP BY series, replicate
)
SELECT t.series, t.replicate,
       CASE WHEN t.n_total = 0 THEN 0.0
            ELSE CAST(t.k_total AS DOUBLE) / CAST(t.n_total AS DOUBLE) END AS cmax,
       coalesce(CASE WHEN estimator = 'item-step' THEN a.aurc_sum / t.n_total
                     ELSE a.aurc_sum END, 0.0) AS aurc_full,
       coalesce(CASE WHEN estimator = 'item-step' THEN a.augrc_sum / t.n_total
                     ELSE a.augrc_sum END, 0.0) AS augrc_full,
       coalesce(CASE WHEN estimator = 'item-step' THEN a.aurc_at_c_sum / t.n_total
                     ELSE a.aurc_at_c_sum END, 0.0) AS aurc_at_c,
       coalesce(CASE WHEN estimator = 'item-step' THEN a.augrc_at_c_sum / t.n_total
                     ELSE a.augrc_at_c_sum END, 0.0) AS augrc_at_c,
       coalesce(a.n_points, 0) AS n_points
FROM query_table(totals) AS t
LEFT JOIN areas AS a USING (series, replicate);
