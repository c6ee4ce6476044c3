-- Coverage@Risk(alpha) for every alpha of a list: the largest working-point coverage whose
-- selective risk <= alpha, with that point's risk and threshold; NULL when no point qualifies
-- (coverage 0). One row per (series, replicate) and distinct alpha. A point qualifies for
-- every alpha >= its risk, but it joins only the smallest of them (the alpha interval
-- (below, alpha] holding its risk): the last point of each interval is then carried up to the
-- larger alphas in a second aggregate over at most one row per block and alpha. Joining every
-- alpha a point satisfies grouped ~5 times as many rows (41 participants x `all`: 0.20 ->
-- 0.13 CPU-s per 1,000 replicates); the same point is picked either way, so the same values.
-- rc_coverage_at_risk is one alpha of it (rc_coverage_at_risk.sql).
CREATE OR REPLACE MACRO rc_coverage_at_risks(points, alphas) AS TABLE
WITH grid AS (
    SELECT alpha, coalesce(lag(alpha) OVER (ORDER BY alpha), CAST('-infinity' AS DOUBLE)) AS below
    FROM (SELECT DISTINCT CAST(unnest(alphas) AS DOUBLE) AS alpha)
),
blocks AS (
    SELECT DISTINCT series, replicate FROM query_table(points)
),
last_in_interval AS (
    SELECT p.series, p.replicate, g.alpha, max(p.plateau) AS plateau,
           arg_max(p.coverage, p.plateau) AS coverage,
           arg_max(p.selective_risk, p.plateau) AS risk,
           arg_max(p.threshold, p.plateau) AS threshold
    FROM query_table(points) AS p
    JOIN grid AS g ON p.selective_risk <= g.alpha AND p.selective_risk > g.below
    GROUP BY p.series, p.replicate, g.alpha
),
qualifying AS (
    SELECT i.series, i.replicate, g.alpha,
           arg_max(i.coverage, i.plateau) AS coverage,
           arg_max(i.risk, i.plateau) AS risk,
           arg_max(i.threshold, i.plateau) AS threshold
    FROM last_in_interval AS i
    JOIN grid AS g ON i.alpha <= g.alpha
    GROUP BY i.series, i.replicate, g.alpha
)
SELECT b.series, b.replicate, g.alpha, q.coverage, q.risk, q.threshold
FROM blocks AS b
CROSS JOIN grid AS g
LEFT JOIN qualifying AS q
    ON q.series = b.series AND q.replicate = b.replicate AND q.alpha = g.alpha;
