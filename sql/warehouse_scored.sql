-- The units of the experiments listed in `experiments` (a relation with an experiment_id
-- column), scored by every CSF each experiment supports (no predicted unit with a missing or
-- null-error signal), under every loss the experiment has: the input of the rc_* macros for
-- the warehouse's own metrics (v_scored is it over every experiment; riskcov.materialise over
-- the experiments an ingest adds, a few CSFs at a time). `only_csfs` keeps the CSFs of a list
-- (NULL: all); the test folds to a constant per branch of v_csf_confidences, so the other CSFs
-- are never computed.
CREATE OR REPLACE MACRO warehouse_scored(experiments, only_csfs) AS TABLE
WITH confidences AS (
    SELECT experiment_id, csf, participant_id, item_index, confidence, abstained, loss_raw, problem
    FROM v_csf_confidences
    WHERE experiment_id IN (SELECT experiment_id FROM query_table(experiments))
      AND (only_csfs IS NULL OR list_contains(only_csfs, csf))
    UNION ALL
    SELECT experiment_id, csf, participant_id, item_index, confidence, abstained, loss_raw, problem
    FROM v_sample_confidences
    WHERE experiment_id IN (SELECT experiment_id FROM query_table(experiments))
      AND (only_csfs IS NULL OR list_contains(only_csfs, csf))
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
