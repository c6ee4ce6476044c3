-- Per series, participant, plateau and class: the items, predicted items and raw loss sum of
-- one class (a per-sample unit's `label`) at one distinct confidence, what the class-balanced
-- metrics weight per replicate (rc_balanced_of). `labelled` names the scored relation with a
-- non-NULL `label` per unit: (series, participant_id, confidence, loss, loss_scale, label),
-- confidence and loss NULL where the unit abstained. `plateau` is rc_cells' numbering (the dense
-- rank of the confidence, most confident first; abstained units last), so a cell lands on the
-- same working point as the unit's rc_cells cell. Loss sums: fsum in ascending loss order, a
-- function of the cell's multiset of losses (exact for integer losses).
CREATE OR REPLACE MACRO rc_class_cells(labelled) AS TABLE
WITH cells AS (
    SELECT series, participant_id, confidence, label,
           count(*) AS n_items,
           count(loss) AS n_pred,
           coalesce(fsum(loss ORDER BY loss), 0.0) AS loss_sum,
           any_value(loss_scale) AS loss_scale
    FROM query_table(labelled)
    GROUP BY series, participant_id, confidence, label
)
SELECT series, participant_id, label, n_items, n_pred, loss_sum, loss_scale,
       dense_rank() OVER (PARTITION BY series ORDER BY confidence DESC NULLS LAST) AS plateau
FROM cells;
