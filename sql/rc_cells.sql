-- Per series, participant and distinct confidence: items, predicted items and loss sum, with
-- the plateau rank of the confidence (1 = most confident) and whether other participants
-- share that plateau (only shared plateaus need summing across participants).
-- `scored` names a relation (series, population, participant_id, item_index, confidence, loss,
-- loss_scale): one row per item of an included participant; confidence and loss are NULL
-- when abstained. Losses are in raw units (abs error), so every sum below is an exact
-- integer whatever the order; loss_scale (1 or 3) divides them at the end.
CREATE OR REPLACE MACRO rc_cells(scored) AS TABLE
WITH cells AS (
    SELECT series, participant_id, confidence,
           count(*) AS n_items,
           count(loss) AS n_pred,
           coalesce(sum(loss), 0.0) AS loss_sum
    FROM query_table(scored)
    GROUP BY series, participant_id, confidence
)
SELECT *,
       dense_rank() OVER (PARTITION BY series ORDER BY confidence DESC NULLS LAST) AS plateau,
       count(*) OVER (PARTITION BY series, confidence) > 1 AS shared
FROM cells;
