-- Every sample of every per-sample experiment as a unit of the scored relation (SPEC §9):
-- participant_id is the sample's cluster as a number (its integer id, else its rank among the
-- experiment's clusters in text order), so sorted ids are SPEC §5's sorted cluster order.
CREATE OR REPLACE VIEW v_sample_units AS
SELECT experiment_id, sample_index, sample_id, cluster,
       coalesce(cluster_int, dense_rank() OVER (PARTITION BY experiment_id ORDER BY cluster))
           AS participant_id,
       abstained, loss
FROM samples;
