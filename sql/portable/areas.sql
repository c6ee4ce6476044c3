-- portable: areas
-- reads: points, totals, truncation
-- columns: series, replicate, cmax, aurc_full, augrc_full, aurc_at_c, augrc_at_c, n_points, aurc_interpolated_points
-- Cmax and the areas of the default estimator (docs/metrics.md) per series and replicate:
-- AURC = trapezoid over (0, r1), (c1, r1), ..., AUGRC over (0, 0), (c1, g1), ...; the
-- truncated areas up to min(C, Cmax), `truncation` holding C in its one row and column `c`
-- (the point at C interpolated linearly); aurc_interpolated_points is fd-shifts' interpolated
-- area over every point (docs/metrics.md). Each point adds its segment; the segments are
-- summed by running windows ORDER BY plateau and read at each block's last point, so the
-- order of the additions is fixed in every engine. A block with no point has area 0.
WITH seg AS (
    SELECT p.series, p.replicate, p.plateau, p.coverage AS x,
           p.selective_risk AS r, p.generalized_risk AS g,
           coalesce(p.coverage_prev, 0.0) AS x0,
           coalesce(p.selective_risk_prev, p.selective_risk) AS r0,
           coalesce(p.generalized_risk_prev, 0.0) AS g0,
           least(CAST(t.c AS DOUBLE), p.coverage_last) AS u,
           p.coverage_prev AS xp
    FROM points AS p
    CROSS JOIN truncation AS t
),
terms AS (
    SELECT series, replicate, plateau,
           (x - x0) * (r0 + r) / 2.0 AS aurc_full,
           (x - x0) * (g0 + g) / 2.0 AS augrc_full,
           CASE WHEN x <= u THEN (x - x0) * (r0 + r) / 2.0
                WHEN x0 < u THEN (u - x0) * (r0 + (r0 + (u - x0) * (r - r0) / (x - x0))) / 2.0
                ELSE 0.0 END AS aurc_at_c,
           CASE WHEN x <= u THEN (x - x0) * (g0 + g) / 2.0
                WHEN x0 < u THEN (u - x0) * (g0 + (g0 + (u - x0) * (g - g0) / (x - x0))) / 2.0
                ELSE 0.0 END AS augrc_at_c,
           CASE WHEN xp IS NULL THEN g
                ELSE (g - g0) + (g0 * x - g * xp) / (x - xp) * ln(x / xp) END AS interpolated
    FROM seg
),
running AS (
    SELECT series, replicate,
           sum(aurc_full) OVER (PARTITION BY series, replicate ORDER BY plateau
                                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS aurc_full,
           sum(augrc_full) OVER (PARTITION BY series, replicate ORDER BY plateau
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS augrc_full,
           sum(aurc_at_c) OVER (PARTITION BY series, replicate ORDER BY plateau
                                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS aurc_at_c,
           sum(augrc_at_c) OVER (PARTITION BY series, replicate ORDER BY plateau
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS augrc_at_c,
           sum(interpolated) OVER (PARTITION BY series, replicate ORDER BY plateau
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS interpolated,
           row_number() OVER (PARTITION BY series, replicate ORDER BY plateau) AS n_points,
           row_number() OVER (PARTITION BY series, replicate ORDER BY plateau DESC) AS from_last
    FROM terms
),
last_point AS (
    SELECT * FROM running WHERE from_last = 1
)
SELECT t.series, t.replicate,
       CASE WHEN t.n_total = 0 THEN 0.0 ELSE CAST(t.k_total AS DOUBLE) / t.n_total END AS cmax,
       coalesce(a.aurc_full, 0.0) AS aurc_full,
       coalesce(a.augrc_full, 0.0) AS augrc_full,
       coalesce(a.aurc_at_c, 0.0) AS aurc_at_c,
       coalesce(a.augrc_at_c, 0.0) AS augrc_at_c,
       coalesce(a.n_points, 0) AS n_points,
       coalesce(a.interpolated, 0.0) AS aurc_interpolated_points
FROM totals AS t
LEFT JOIN last_point AS a ON a.series = t.series AND a.replicate = t.replicate
