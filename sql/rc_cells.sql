-- Per series and participant: items, predicted items and loss sum at each distinct confidence.
-- `scored` names a relation (series, population, participant_id, confidence, loss, loss_scale):
-- one row per item of an included participant; confidence and loss are NULL when abstained.
-- Losses are in raw units (abs error) so the sums below are exact integers and the order of
-- summation cannot change a bit; loss_scale (1 or 3) divides them at the end.
CREATE OR REPLACE MACRO rc_cells(scored) AS TABLE
SELECT series, participant_id, confidence,
       count(*) AS n_items,
       count(loss) AS n_pred,
       coalesce(sum(loss), 0.0) AS loss_sum
FROM query_table(scored)
GROUP BY series, participant_id, confidence;
