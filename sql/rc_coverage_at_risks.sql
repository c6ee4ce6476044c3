-- Coverage@Risk(alpha) for every alpha of a list: the largest working-point coverage whose
-- selective risk <= alpha, with that point's risk and threshold; NULL when no point qualifies
-- (coverage 0). One row per (series, replicate) and distinct alpha. A point qualifies for
-- every alpha >= its risk, but it joins only the smallest of them: the interval
-- [lo, alpha] with lo the next double above the alpha below (-infinity for the smallest, so a
-- risk of -infinity joins too). The last point of each interval is then carried up to the
-- larger alphas in a second aggregate over at most one row per block and alpha. Joining every
-- alpha a point satisfies grouped ~5 times as many rows (41 participants x `all`: 0.20 ->
-- 0.13 CPU-s per 1,000 replicates); the same point is picked either way, so the same values.
-- The blocks come from the same aggregate: a point that qualifies for no alpha joins no
-- interval (LEFT JOIN) and lands in the group of alpha NULL, so its block keeps its rows without
-- a second scan of the points.
-- Before the join, a point is dropped when the next row (LEAD without ORDER BY, so in whatever
-- order the rows come) is of its block, of a higher plateau and no riskier: that row qualifies
-- for every alpha the point does, so the point is never the answer. Whatever the order, the
-- answers stay and each block keeps a row (its last in scan order); in the stored order (each
-- block contiguous, in plateau order) about two thirds of 41 participants x `all`'s points go.
-- arg_max_null keeps a NULL coverage or threshold of the last point rather than skipping to
-- an earlier point's. rc_coverage_at_risk is one alpha of it (rc_coverage_at_risk.sql).
CREATE OR REPLACE MACRO rc_coverage_at_risks(points, alphas) AS TABLE
WITH grid AS (
    SELECT alpha,
           coalesce(nextafter(lag(alpha) OVER (ORDER BY alpha ASC NULLS LAST), CAST('infinity' AS DOUBLE)),
                    CAST('-infinity' AS DOUBLE)) AS lo
    FROM (SELECT DISTINCT CAST(unnest(alphas) AS DOUBLE) AS alpha)
),
kept AS (  -- every point but one whose next row is of its block, later and no riskier
    SELECT series, replicate, plateau, coverage, selective_risk, threshold
    FROM (SELECT series, replicate, plateau, coverage, selective_risk, threshold,
                 lead(series) OVER () AS next_series, lead(replicate) OVER () AS next_replicate,
                 lead(plateau) OVER () AS next_plateau, lead(selective_risk) OVER () AS next_risk
          FROM query_table(points))
    WHERE NOT ((next_series = series AND next_replicate = replicate AND next_plateau > plateau
                AND next_risk <= selective_risk) IS TRUE)
),
intervals AS (
    SELECT p.series, p.replicate, g.alpha, max(p.plateau) AS plateau,
           arg_max_null(p.coverage, p.plateau) AS coverage,
           arg_max_null(p.selective_risk, p.plateau) AS risk,
           arg_max_null(p.threshold, p.plateau) AS threshold
    FROM kept AS p
    LEFT JOIN grid AS g ON p.selective_risk <= g.alpha AND p.selective_risk >= g.lo
    GROUP BY p.series, p.replicate, g.alpha
),
blocks AS (
    SELECT DISTINCT series, replicate FROM intervals
),
last_in_interval AS (
    FROM intervals WHERE alpha IS NOT NULL
),
qualifying AS (
    SELECT i.series, i.replicate, g.alpha,
           arg_max_null(i.coverage, i.plateau) AS coverage,
           arg_max_null(i.risk, i.plateau) AS risk,
           arg_max_null(i.threshold, i.plateau) AS threshold
    FROM last_in_interval AS i
    JOIN grid AS g ON i.alpha <= g.alpha
    GROUP BY i.series, i.replicate, g.alpha
)
SELECT b.series, b.replicate, g.alpha, q.coverage, q.risk, q.threshold
FROM blocks AS b
CROSS JOIN grid AS g
LEFT JOIN qualifying AS q
    ON q.series = b.series AND q.replicate = b.replicate AND q.alpha = g.alpha;
