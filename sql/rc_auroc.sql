-- AUROC per series: the probability that a positive scores above a negative, ties counting
-- one half (docs/risk-control.md: ID positive vs OOD). `scores` names a relation (series, score,
-- positive BOOLEAN); a NULL score (an abstention, never accepted) ranks below every score.
-- Counts are summed as HUGEINT, so the numerator is exact; NULL when a class is empty.
CREATE OR REPLACE MACRO rc_auroc(scores) AS TABLE
WITH levels AS (
    SELECT series, score,
           count(*) FILTER (WHERE positive) AS n_pos,
           count(*) FILTER (WHERE NOT positive) AS n_neg
    FROM query_table(scores)
    GROUP BY series, score
),
below AS (
    SELECT *,
           coalesce(sum(n_neg) OVER (PARTITION BY series ORDER BY score ASC NULLS FIRST
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
               AS neg_below
    FROM levels
)
SELECT series,
       sum(n_pos)::BIGINT AS n_positive, sum(n_neg)::BIGINT AS n_negative,
       CASE WHEN sum(n_pos) = 0 OR sum(n_neg) = 0 THEN NULL
            ELSE CAST(sum(CAST(n_pos AS HUGEINT) * (2 * CAST(neg_below AS HUGEINT) + n_neg))
                      AS DOUBLE) / (2.0 * CAST(sum(n_pos) AS DOUBLE) * CAST(sum(n_neg) AS DOUBLE))
       END AS auroc
FROM below
GROUP BY series;
