-- Every sample of every per-sample experiment as a unit of the scored relation (SPEC §9):
-- participant_id is the sample's cluster as a number: its integer id, else its rank among all
-- text clusters of the warehouse in text order, shifted far below any integer id a file would
-- use. Sorted ids are then SPEC §5's sorted cluster order, and the same text cluster has the
-- same id in every experiment, so a paired comparison matches clusters by name (a per-experiment
-- rank would pair the first cluster of one experiment with the first of the other).
CREATE OR REPLACE VIEW v_sample_units AS
SELECT experiment_id, sample_index, sample_id, cluster,
       coalesce(cluster_int, dense_rank() OVER (ORDER BY cluster) - 4611686018427387904)
           AS participant_id,
       abstained, loss
FROM samples;
