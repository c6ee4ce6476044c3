-- portable: class_cells
-- reads: labelled
-- columns: series, cluster, label, n_items, n_pred, loss_sum, loss_scale, plateau
-- The cells of the class-balanced areas (docs/metrics-extended.md): cells.sql's per series,
-- cluster and distinct confidence, split by the samples' class `label`, with the same plateau
-- rank (1 = most confident, NULL for abstentions). `labelled`: scored's columns and label.
WITH grouped AS (
    SELECT series, cluster, confidence + 0.0 AS confidence, label,
           count(*) AS n_items,
           count(loss) AS n_pred,
           CAST(coalesce(sum(CAST(loss AS DECIMAL(27, 18))), 0) AS DECIMAL(27, 18)) AS loss_sum,
           max(loss_scale) AS loss_scale
    FROM labelled
    GROUP BY series, cluster, confidence + 0.0, label
)
SELECT series, cluster, label, n_items, n_pred, loss_sum, loss_scale,
       CASE WHEN confidence IS NULL THEN NULL
            ELSE dense_rank() OVER (PARTITION BY series, CASE WHEN confidence IS NULL THEN 1 ELSE 0 END
                                    ORDER BY confidence DESC)
       END AS plateau
FROM grouped
