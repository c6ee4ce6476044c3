-- Coverage@Risk(alpha): the largest working-point coverage whose selective risk <= alpha,
-- with that point's risk and threshold. No row when no point qualifies (coverage 0).
-- Each point falls in one risk bucket (alpha_{i-1}, alpha_i], a band join; the answer for
-- alpha_j is the last point over buckets i <= j.
CREATE OR REPLACE MACRO rc_coverage_at_risk(points, alphas) AS TABLE
WITH grid AS (
    SELECT alpha, coalesce(lag(alpha) OVER (ORDER BY alpha), -CAST('infinity' AS DOUBLE))
               AS below
    FROM query_table(alphas)
),
best AS (
    SELECT p.series, p.replicate, g.alpha AS bucket, max(p.plateau) AS plateau,
           arg_max(p.coverage, p.plateau) AS coverage,
           arg_max(p.selective_risk, p.plateau) AS risk,
           arg_max(p.threshold, p.plateau) AS threshold
    FROM query_table(points) AS p
    JOIN grid AS g ON p.selective_risk > g.below AND p.selective_risk <= g.alpha
    GROUP BY p.series, p.replicate, g.alpha
)
SELECT b.series, b.replicate, g.alpha,
       arg_max(b.coverage, b.plateau) AS coverage,
       arg_max(b.risk, b.plateau) AS risk,
       arg_max(b.threshold, b.plateau) AS threshold
FROM best AS b
JOIN grid AS g ON b.bucket <= g.alpha
GROUP BY b.series, b.replicate, g.alpha;
