-- Scalar metrics of docs/metrics.md per series and replicate (and aurc_interpolated_points: the
-- interpolated area of docs/metrics.md over every point, which is fd-shifts' achievable AURC for continuous
-- losses under the plateau estimator), from working points (rc_points, in
-- (series, replicate, plateau) order) and totals (rc_totals), under an estimator:
--   plateau-trapezoid: trapezoid over (0, r1), (c1, r1), ... and (0, 0), (c1, g1), ...
--   item-trapezoid:    trapezoid between item points, no point at coverage 0
--   item-step:         AURC = sum(r_k) / N, AUGRC = sum(g_k) / N, step truncation
-- Areas are sums of per-segment trapezoids. `evaluate` runs this aggregate on one thread: the
-- points table is stored in (series, replicate, plateau) order, so every block is then summed
-- in point order and the result is reproducible to the last bit (with several threads a
-- block's partial sums may be combined in any order).
CREATE OR REPLACE MACRO rc_metrics(points, totals, area_c, estimator) AS TABLE
WITH seg AS (
    SELECT p.series, p.replicate, p.k_cum, p.n_total, p.coverage,
           p.selective_risk AS r, p.generalized_risk AS g,
           CASE WHEN p.coverage_prev IS NULL AND estimator = 'item-trapezoid' THEN NULL
                ELSE coalesce(p.coverage_prev, 0.0) END AS c0,
           coalesce(p.selective_risk_prev, p.selective_risk) AS r0,
           coalesce(p.generalized_risk_prev, 0.0) AS g0,
           least(CAST(area_c AS DOUBLE), p.coverage_last) AS c_used,
           p.coverage_prev, p.generalized_risk_prev
    FROM query_table(points) AS p
),
areas AS (
    SELECT series, replicate,
        sum(CASE WHEN estimator = 'item-step' THEN rc_step(k_cum, r, n_total, 1.0)
                 ELSE rc_trapezoid(c0, r0, coverage, r, 1.0) END) AS aurc_full,
        sum(CASE WHEN estimator = 'item-step' THEN rc_step(k_cum, g, n_total, 1.0)
                 ELSE rc_trapezoid(c0, g0, coverage, g, 1.0) END) AS augrc_full,
        sum(CASE WHEN estimator = 'item-step' THEN rc_step(k_cum, r, n_total, c_used)
                 ELSE rc_trapezoid(c0, r0, coverage, r, c_used) END) AS aurc_at_c,
        sum(CASE WHEN estimator = 'item-step' THEN rc_step(k_cum, g, n_total, c_used)
                 ELSE rc_trapezoid(c0, g0, coverage, g, c_used) END) AS augrc_at_c,
        CASE WHEN estimator = 'item-step' THEN CAST(any_value(n_total) AS DOUBLE) ELSE 1.0 END
            AS step_divisor,
        sum(rc_log_segment(coverage_prev, generalized_risk_prev, coverage, g)) AS interpolated,
        count(*) AS n_points,
        max(k_cum) AS k_last
    FROM seg
    GROUP BY series, replicate
)
SELECT t.series, t.replicate,
       CASE WHEN a.k_last <> t.k_total
                THEN error('rc_metrics: a block of working points does not end at its total')
            WHEN t.n_total = 0 THEN 0.0
            ELSE CAST(t.k_total AS DOUBLE) / t.n_total END AS cmax,
       coalesce(a.aurc_full / a.step_divisor, 0.0) AS aurc_full,
       coalesce(a.augrc_full / a.step_divisor, 0.0) AS augrc_full,
       coalesce(a.aurc_at_c / a.step_divisor, 0.0) AS aurc_at_c,
       coalesce(a.augrc_at_c / a.step_divisor, 0.0) AS augrc_at_c,
       coalesce(a.n_points, 0) AS n_points,
       coalesce(a.interpolated, 0.0) AS aurc_interpolated_points
FROM query_table(totals) AS t
LEFT JOIN areas AS a USING (series, replicate);
