-- The probabilities whose calibration docs/metrics.md defines: per per-sample experiment whose
-- file gave `prob` and whose losses are 0/1, every predicted sample with a prob, as (series = experiment_id, prob,
-- correct = 1 - loss), the relation prob_calibration reads. Abstained samples predict nothing.
CREATE OR REPLACE VIEW v_prob_samples AS
WITH eligible AS (
    SELECT experiment_id
    FROM samples
    WHERE NOT abstained
    GROUP BY experiment_id
    HAVING count(prob) > 0 AND bool_and(loss = 0 OR loss = 1)
)
SELECT s.experiment_id AS series, s.prob, CAST(1 - s.loss AS INTEGER) AS correct
FROM samples AS s SEMI JOIN eligible USING (experiment_id)
WHERE NOT s.abstained AND s.prob IS NOT NULL;
