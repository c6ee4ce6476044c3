-- Every sample of the per-sample experiments listed in `experiments` (a relation with an
-- experiment_id column) under each of its score columns (v_sample_confidences), in the columns
-- of warehouse_confidences; `only_csfs` keeps the CSFs of a list (NULL: all). The metric
-- tables read the items' CSFs from internal.v_csf_columns and the samples' from here.
CREATE OR REPLACE MACRO warehouse_sample_confidences(experiments, only_csfs) AS TABLE
SELECT experiment_id, csf, participant_id, item_index, confidence, abstained, loss_raw, problem
FROM v_sample_confidences
WHERE experiment_id IN (SELECT experiment_id FROM query_table(experiments))
  AND (only_csfs IS NULL OR list_contains(only_csfs, csf));
