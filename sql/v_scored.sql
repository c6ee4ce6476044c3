-- Every unit of every experiment, scored by every CSF the experiment supports (no predicted
-- unit with a missing or null-error signal), under every loss the experiment has: the input
-- of the rc_* macros for warehouse-wide views.
CREATE OR REPLACE VIEW v_scored AS
WITH confidences AS (
    SELECT experiment_id, csf, participant_id, item_index, confidence, abstained, loss_raw, problem
    FROM v_csf_confidences
    UNION ALL
    SELECT experiment_id, csf, participant_id, item_index, confidence, abstained, loss_raw, problem
    FROM v_sample_confidences
),
supported AS (
    SELECT experiment_id, csf
    FROM confidences
    GROUP BY experiment_id, csf
    HAVING count(problem) = 0
),
labelled AS (
    SELECT {'experiment_id': c.experiment_id, 'csf': c.csf, 'loss': l.loss} AS series,
           {'experiment_id': c.experiment_id, 'loss': l.loss} AS population,
           c.experiment_id, l.loss, c.participant_id, c.item_index, c.confidence, c.abstained,
           c.loss_raw
    FROM confidences AS c
    JOIN supported USING (experiment_id, csf)
    JOIN v_experiment_losses AS l USING (experiment_id)
)
FROM rc_scored(labelled);
