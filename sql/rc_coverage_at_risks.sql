-- Coverage@Risk(alpha) for every alpha of a list: the largest working-point coverage whose
-- selective risk <= alpha, with that point's risk and threshold; NULL when no point qualifies
-- (coverage 0). One row per (series, replicate) and distinct alpha: each point joins the alphas
-- it satisfies, in one aggregate (a one-alpha FILTER aggregate per alpha scanned the points
-- once per alpha, ~40 % more CPU for six alphas), and one more scan lists the blocks.
-- rc_coverage_at_risk is one alpha of it (rc_coverage_at_risk.sql).
CREATE OR REPLACE MACRO rc_coverage_at_risks(points, alphas) AS TABLE
WITH grid AS (
    SELECT DISTINCT alpha FROM (SELECT CAST(unnest(alphas) AS DOUBLE) AS alpha)
),
blocks AS (
    SELECT DISTINCT series, replicate FROM query_table(points)
),
qualifying AS (
    SELECT p.series, p.replicate, g.alpha,
           arg_max(p.coverage, p.plateau) AS coverage,
           arg_max(p.selective_risk, p.plateau) AS risk,
           arg_max(p.threshold, p.plateau) AS threshold
    FROM query_table(points) AS p
    JOIN grid AS g ON p.selective_risk <= g.alpha
    GROUP BY p.series, p.replicate, g.alpha
)
SELECT b.series, b.replicate, g.alpha, q.coverage, q.risk, q.threshold
FROM blocks AS b
CROSS JOIN grid AS g
LEFT JOIN qualifying AS q
    ON q.series = b.series AND q.replicate = b.replicate AND q.alpha = g.alpha;
