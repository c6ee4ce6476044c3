-- portable: coverage_at_risk
-- reads: points, alphas
-- columns: series, replicate, alpha, coverage, risk, threshold
-- Coverage@Risk(alpha) for every alpha of `alphas` (column `alpha`): the largest working-point
-- coverage whose selective risk <= alpha, with that point's risk and threshold; NULL when no
-- point qualifies (coverage 0, docs/metrics.md). Coverage grows with the plateau, so the
-- qualifying point of the highest plateau is picked (row_number over a total order).
WITH grid AS (
    SELECT DISTINCT CAST(alpha AS DOUBLE) AS alpha FROM alphas
),
blocks AS (
    SELECT DISTINCT series, replicate FROM points
),
qualifying AS (
    SELECT p.series, p.replicate, g.alpha, p.coverage, p.selective_risk AS risk, p.threshold,
           row_number() OVER (PARTITION BY p.series, p.replicate, g.alpha ORDER BY p.plateau DESC) AS pick
    FROM points AS p
    JOIN grid AS g ON p.selective_risk <= g.alpha
)
SELECT b.series, b.replicate, g.alpha, q.coverage, q.risk, q.threshold
FROM blocks AS b
CROSS JOIN grid AS g
LEFT JOIN qualifying AS q
    ON q.series = b.series AND q.replicate = b.replicate AND q.alpha = g.alpha AND q.pick = 1
