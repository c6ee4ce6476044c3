-- Every sample of every per-sample experiment as a unit of the scored relation (docs/formats.md):
-- participant_id is the sample's cluster as a number: its integer id, else its rank among all
-- text clusters of the warehouse in text order, shifted far below any integer id a file would
-- use. Sorted ids are then docs/metrics.md's sorted cluster order, and the same text cluster has the
-- same id in every experiment, so a paired comparison matches clusters by name (a per-experiment
-- rank would pair the first cluster of one experiment with the first of the other).
-- Only the text clusters are ranked, and integer-clustered rows pass through without a join, so
-- for them a filter on experiment_id reaches the scan of `samples` (a window over every sample
-- of the warehouse made each ingest re-sort the whole history's samples); the text clusters'
-- ranks still read every text-clustered sample of the warehouse, as their ids are warehouse-wide.
CREATE OR REPLACE VIEW v_sample_units AS
WITH text_ids AS (
    SELECT cluster, dense_rank() OVER (ORDER BY cluster) - 4611686018427387904 AS text_id
    FROM (SELECT DISTINCT cluster FROM samples WHERE cluster_int IS NULL)
)
SELECT experiment_id, sample_index, sample_id, cluster, cluster_int AS participant_id,
       abstained, loss
FROM samples
WHERE cluster_int IS NOT NULL
UNION ALL
SELECT s.experiment_id, s.sample_index, s.sample_id, s.cluster, t.text_id AS participant_id,
       s.abstained, s.loss
FROM samples AS s
JOIN text_ids AS t USING (cluster)
WHERE s.cluster_int IS NULL;
