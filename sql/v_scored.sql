-- Every item of every successful participant, scored by every base CSF the experiment
-- supports (no predicted item with a missing or null-error signal), under both losses.
-- The input of the rc_* macros for warehouse-wide views.
CREATE OR REPLACE VIEW v_scored AS
WITH supported AS (
    SELECT experiment_id, csf
    FROM v_csf_confidences
    GROUP BY experiment_id, csf
    HAVING count(problem) = 0
)
SELECT {'experiment_id': c.experiment_id, 'csf': c.csf, 'loss': l.loss} AS series,
       {'experiment_id': c.experiment_id, 'loss': l.loss} AS population,
       c.participant_id, c.item_index, c.confidence,
       CAST(abs(c.pred - c.gt) AS DOUBLE) AS loss,
       CASE l.loss WHEN 'abs' THEN CAST(1 AS DOUBLE)
                   ELSE CAST(e.score_max - e.score_min AS DOUBLE) END AS loss_scale
FROM v_csf_confidences AS c
JOIN supported USING (experiment_id, csf)
JOIN experiments AS e USING (experiment_id)
CROSS JOIN (VALUES ('abs'), ('abs_norm')) AS l(loss);
