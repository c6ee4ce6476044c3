-- What `riskcov runs` lists: one row per (run, experiment) with the run's provenance and the
-- experiment's counts. PHQ-8 experiments count participants (failed ones apart), items and
-- predicted items; per-sample experiments count clusters as participants, samples as items
-- and non-abstained samples as predicted. `mode` names a per-sample experiment by its method,
-- seed, split and domain; `per_sample` tells the two kinds apart. No order: readers sort by (run_id, experiment_index), the key.
CREATE OR REPLACE VIEW v_run_experiments AS
WITH units AS (
    SELECT p.experiment_id, count(DISTINCT p.participant_id) AS participants,
           count(DISTINCT p.participant_id) FILTER (WHERE NOT p.success) AS failed,
           count(i.item_index) AS items, count(i.pred) AS predicted
    FROM participants p LEFT JOIN items i USING (experiment_id, participant_id)
    GROUP BY p.experiment_id
    UNION ALL
    SELECT experiment_id, count(DISTINCT cluster), 0, count(*), count(*) FILTER (WHERE NOT abstained)
    FROM samples GROUP BY experiment_id
)
SELECT r.run_id, r.source_path, r.git_commit, r."timestamp", CAST(r.ingested_at AS VARCHAR) AS ingested_at,
       e.experiment_index,
       coalesce(e.mode, e.method || ' seed ' || e.seed || ' ' || e.split || ' ' || e.domain) AS mode,
       coalesce(u.participants, 0) AS participants, coalesce(u.failed, 0) AS failed,
       coalesce(u.items, 0) AS items, coalesce(u.predicted, 0) AS predicted,
       coalesce(u.items - u.predicted, 0) AS abstained,
       e.loss_kind = 'given' AS per_sample
FROM runs r
JOIN experiments e USING (run_id)
LEFT JOIN units u USING (experiment_id);
