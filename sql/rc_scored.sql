-- The scored relation every rc_* macro reads: (series, population, participant_id,
-- item_index, confidence, loss, loss_scale), one row per unit (a PHQ-8 item of an included
-- participant, or a sample), confidence and loss NULL where the unit abstained.
-- `confidences` names a relation (series, population, experiment_id, loss, participant_id,
-- item_index, confidence, abstained, loss_raw) that a format builds (v_csf_confidences,
-- v_sample_confidences, or evaluate's selection); losses stay in raw units (PHQ-8: integer
-- abs errors, so every sum is exact) and loss_scale, from v_experiment_losses, divides them
-- at the end.
CREATE OR REPLACE MACRO rc_scored(confidences) AS TABLE
SELECT c.series, c.population, c.participant_id, c.item_index,
       CASE WHEN c.abstained THEN NULL ELSE c.confidence END AS confidence,
       CASE WHEN c.abstained THEN NULL ELSE CAST(c.loss_raw AS DOUBLE) END AS loss,
       CAST(l.loss_scale AS DOUBLE) AS loss_scale
FROM query_table(confidences) AS c
JOIN v_experiment_losses AS l USING (experiment_id, loss);
