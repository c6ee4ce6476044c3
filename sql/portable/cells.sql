-- portable: cells
-- reads: scored
-- columns: series, cluster, confidence, n_items, n_pred, loss_sum, loss_scale, plateau
-- The sort-once base of every RC metric (docs/spark.md): per series, cluster and distinct
-- confidence, the units, the predicted units and their raw loss sum, with the plateau rank of
-- the confidence (1 = most confident; NULL for abstentions), ranked once for all replicates.
-- `scored` (series, cluster, confidence, loss, loss_scale): one row per unit, confidence and
-- loss NULL where it abstained; losses in raw units, loss_scale divides them at the end.
-- Loss sums are DECIMAL(27, 18): exact, so no sum depends on row order, engine or threads
-- (losses are carried to 18 decimal places; a cell's sum stays below 1e9).
-- confidence + 0.0 turns -0.0 into 0.0, so a plateau's threshold does not depend on which
-- zero an engine meets first.
WITH grouped AS (
    SELECT series, cluster, confidence + 0.0 AS confidence,
           count(*) AS n_items,
           count(loss) AS n_pred,
           CAST(coalesce(sum(CAST(loss AS DECIMAL(27, 18))), 0) AS DECIMAL(27, 18)) AS loss_sum,
           max(loss_scale) AS loss_scale
    FROM scored
    GROUP BY series, cluster, confidence + 0.0
)
SELECT series, cluster, confidence, n_items, n_pred, loss_sum, loss_scale,
       CASE WHEN confidence IS NULL THEN NULL
            ELSE dense_rank() OVER (PARTITION BY series, CASE WHEN confidence IS NULL THEN 1 ELSE 0 END
                                    ORDER BY confidence DESC)
       END AS plateau
FROM grouped
