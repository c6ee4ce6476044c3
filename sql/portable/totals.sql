-- portable: totals
-- reads: cells, samples
-- columns: series, replicate, n_total, k_total, l_total, loss_scale
-- N (units), K (predicted units) and the raw loss sum per series and bootstrap replicate: each
-- cluster's counts weighted by its multiplicity in the replicate. `samples` (replicate,
-- cluster, multiplicity): the point estimate is replicate 0 with every multiplicity 1; a
-- bootstrap replicate is other weights (docs/spark.md). Exact DECIMAL loss sums (cells.sql).
WITH clusters AS (
    SELECT series, cluster, sum(n_items) AS n_items, sum(n_pred) AS n_pred,
           CAST(sum(loss_sum) AS DECIMAL(27, 18)) AS loss_sum, max(loss_scale) AS loss_scale
    FROM cells
    GROUP BY series, cluster
)
SELECT c.series, s.replicate,
       sum(s.multiplicity * c.n_items) AS n_total,
       sum(s.multiplicity * c.n_pred) AS k_total,
       sum(CAST(s.multiplicity AS DECIMAL(10, 0)) * c.loss_sum) AS l_total,
       max(c.loss_scale) AS loss_scale
FROM clusters AS c
JOIN samples AS s ON s.cluster = c.cluster
GROUP BY c.series, s.replicate
