-- Per series, participant and distinct confidence: items, predicted items and loss sum, with
-- the plateau rank of the confidence (1 = most confident) and whether other participants
-- share that plateau (only shared plateaus need summing across participants).
-- `scored` names a relation (series, population, participant_id, item_index, confidence, loss,
-- loss_scale): one row per item of an included participant; confidence and loss are NULL
-- when abstained. Losses are in raw units; loss_scale (1 or 3) divides them at the end.
-- Exactness (every number independent of row order and thread count): integer-valued losses
-- (PHQ-8's abs errors, 0/1 losses) are summed by plain sum, exact in any order; the others
-- (continuous per-sample losses) by fsum (compensated) in ascending loss order, a total order
-- of the summands' values, so a cell's sum is a function of its multiset of losses. The two
-- parts are added once; with integer losses the second is 0.0 and the sum is the old one.
CREATE OR REPLACE MACRO rc_cells(scored) AS TABLE
WITH cells AS (
    SELECT series, participant_id, confidence,
           count(*) AS n_items,
           count(loss) AS n_pred,
           coalesce(sum(loss) FILTER (WHERE loss = floor(loss)), 0.0)
               + coalesce(fsum(loss ORDER BY loss) FILTER (WHERE loss <> floor(loss)), 0.0)
               AS loss_sum
    FROM query_table(scored)
    GROUP BY series, participant_id, confidence
)
SELECT *,
       dense_rank() OVER (PARTITION BY series ORDER BY confidence DESC NULLS LAST) AS plateau,
       count(*) OVER (PARTITION BY series, confidence) > 1 AS shared
FROM cells;
