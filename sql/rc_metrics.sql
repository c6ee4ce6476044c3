-- Scalar metrics of SPEC §4 per series and replicate, from working points (rc_points, in
-- (series, replicate, plateau) order) and totals (rc_totals), under an estimator:
--   plateau-trapezoid: trapezoid over (0, r1), (c1, r1), ... and (0, 0), (c1, g1), ...
--   item-trapezoid:    trapezoid between item points, no point at coverage 0
--   item-step:         AURC = sum(r_k) / N, AUGRC = sum(g_k) / N, step truncation
-- Segment areas are summed as DECIMAL(38, 30) in the points' order, a streaming running sum
-- read at each block's last point minus the previous block's: exact integer arithmetic, so
-- no thread schedule can change a bit, and no hash aggregate over every point.
CREATE OR REPLACE MACRO rc_metrics(points, totals, area_c, estimator) AS TABLE
WITH seg AS (
    SELECT p.series, p.replicate, p.k_cum, p.n_total, p.k_total, p.coverage,
           p.selective_risk AS r, p.generalized_risk AS g,
           CASE WHEN p.coverage_prev IS NULL AND estimator = 'item-trapezoid' THEN NULL
                ELSE coalesce(p.coverage_prev, 0.0) END AS c0,
           coalesce(p.selective_risk_prev, p.selective_risk) AS r0,
           coalesce(p.generalized_risk_prev, 0.0) AS g0,
           least(CAST(area_c AS DOUBLE), p.coverage_last) AS c_used,
           floor(least(CAST(area_c AS DOUBLE), p.coverage_last) * p.n_total) AS k_full
    FROM query_table(points) AS p
),
pieces AS (
    SELECT series, replicate, k_cum, k_total,
        CAST(CASE WHEN estimator = 'item-step' THEN r / n_total
                  WHEN c0 IS NULL THEN 0.0
                  ELSE (coverage - c0) * (r0 + r) / 2.0 END AS DECIMAL(38, 30)) AS aurc,
        CAST(CASE WHEN estimator = 'item-step' THEN g / n_total
                  WHEN c0 IS NULL THEN 0.0
                  ELSE (coverage - c0) * (g0 + g) / 2.0 END AS DECIMAL(38, 30)) AS augrc,
        CAST(CASE
                WHEN estimator = 'item-step' THEN
                    CASE WHEN k_cum <= k_full THEN r / n_total
                         WHEN k_cum = k_full + 1 THEN (c_used * n_total - k_full) * r / n_total
                         ELSE 0.0 END
                WHEN c0 IS NULL THEN 0.0
                WHEN coverage <= c_used THEN (coverage - c0) * (r0 + r) / 2.0
                WHEN c0 < c_used THEN (c_used - c0)
                    * (r0 + (r0 + (c_used - c0) * (r - r0) / (coverage - c0))) / 2.0
                ELSE 0.0 END AS DECIMAL(38, 30)) AS aurc_c,
        CAST(CASE
                WHEN estimator = 'item-step' THEN
                    CASE WHEN k_cum <= k_full THEN g / n_total
                         WHEN k_cum = k_full + 1 THEN (c_used * n_total - k_full) * g / n_total
                         ELSE 0.0 END
                WHEN c0 IS NULL THEN 0.0
                WHEN coverage <= c_used THEN (coverage - c0) * (g0 + g) / 2.0
                WHEN c0 < c_used THEN (c_used - c0)
                    * (g0 + (g0 + (c_used - c0) * (g - g0) / (coverage - c0))) / 2.0
                ELSE 0.0 END AS DECIMAL(38, 30)) AS augrc_c,
        row_number() OVER () AS position
    FROM seg
),
running AS (
    SELECT series, replicate, k_cum, k_total, position,
           sum(aurc) OVER upto AS aurc, sum(augrc) OVER upto AS augrc,
           sum(aurc_c) OVER upto AS aurc_c, sum(augrc_c) OVER upto AS augrc_c
    FROM pieces
    WINDOW upto AS (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
ends AS (
    SELECT series, replicate, k_cum, k_total,
           aurc - coalesce(lag(aurc) OVER blocks, 0) AS aurc_full,
           augrc - coalesce(lag(augrc) OVER blocks, 0) AS augrc_full,
           aurc_c - coalesce(lag(aurc_c) OVER blocks, 0) AS aurc_at_c,
           augrc_c - coalesce(lag(augrc_c) OVER blocks, 0) AS augrc_at_c,
           position - coalesce(lag(position) OVER blocks, 0) AS n_points
    FROM running
    WHERE k_cum = k_total
    WINDOW blocks AS (ORDER BY position)
)
SELECT t.series, t.replicate,
       CASE WHEN e.series IS NULL AND t.k_total > 0
                THEN error('rc_metrics: a block of working points does not end at its total')
            WHEN t.n_total = 0 THEN 0.0
            ELSE CAST(t.k_total AS DOUBLE) / t.n_total END AS cmax,
       coalesce(CAST(e.aurc_full AS DOUBLE), 0.0) AS aurc_full,
       coalesce(CAST(e.augrc_full AS DOUBLE), 0.0) AS augrc_full,
       coalesce(CAST(e.aurc_at_c AS DOUBLE), 0.0) AS aurc_at_c,
       coalesce(CAST(e.augrc_at_c AS DOUBLE), 0.0) AS augrc_at_c,
       coalesce(e.n_points, 0) AS n_points
FROM query_table(totals) AS t
LEFT JOIN ends AS e USING (series, replicate);
