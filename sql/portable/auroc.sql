-- portable: auroc
-- reads: scores
-- columns: series, n_positive, n_negative, auroc
-- AUROC per series (docs/metrics.md, OOD): the probability that a positive (ID) scores above a
-- negative (OOD), ties counting one half. `scores` (series, score, positive BOOLEAN); a NULL
-- score (an abstention, never accepted) ranks below every score. The numerator is summed as
-- DECIMAL(38, 0), exact; NULL when a class is empty.
WITH levels AS (
    SELECT series, score,
           sum(CASE WHEN positive THEN 1 ELSE 0 END) AS n_pos,
           sum(CASE WHEN positive THEN 0 ELSE 1 END) AS n_neg
    FROM scores
    GROUP BY series, score
),
below AS (
    SELECT series, score, n_pos, n_neg,
           coalesce(sum(n_neg) OVER (PARTITION BY series
                                     ORDER BY CASE WHEN score IS NULL THEN 0 ELSE 1 END, score
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS neg_below
    FROM levels
)
SELECT series, sum(n_pos) AS n_positive, sum(n_neg) AS n_negative,
       CASE WHEN sum(n_pos) = 0 OR sum(n_neg) = 0 THEN NULL
            ELSE CAST(sum(CAST(n_pos AS DECIMAL(19, 0)) * CAST(2 * neg_below + n_neg AS DECIMAL(19, 0)))
                      AS DOUBLE) / (2.0 * CAST(sum(n_pos) AS DOUBLE) * CAST(sum(n_neg) AS DOUBLE))
       END AS auroc
FROM below
GROUP BY series
