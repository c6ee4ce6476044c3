-- Every unit of the experiments listed in `experiments` (a relation with an experiment_id
-- column) under every CSF (v_csf_confidences for PHQ-8 items, warehouse_sample_confidences for
-- samples), with the problem that makes a CSF unusable on it: the input of warehouse_series
-- and warehouse_scored. `only_csfs` keeps the CSFs of a list (NULL: all); the test folds to a
-- constant per branch of v_csf_confidences, so the other CSFs are never computed.
CREATE OR REPLACE MACRO warehouse_confidences(experiments, only_csfs) AS TABLE
SELECT experiment_id, csf, participant_id, item_index, confidence, abstained, loss_raw, problem
FROM v_csf_confidences
WHERE experiment_id IN (SELECT experiment_id FROM query_table(experiments))
  AND (only_csfs IS NULL OR list_contains(only_csfs, csf))
UNION ALL
FROM warehouse_sample_confidences(experiments, only_csfs);
