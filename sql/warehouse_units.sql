-- The point-estimate sample (replicate 0, every unit once) of the experiments listed in
-- `experiments` (a relation with an experiment_id column): their included participants and
-- their samples' clusters, each id once. riskcov.warehouse.metric_tables weights a refresh's scored units
-- by it: reading only the experiments being added keeps an ingest from scanning and
-- deduplicating every unit of the warehouse's history, which grows with every ingest.
CREATE OR REPLACE MACRO warehouse_units(experiments) AS TABLE
SELECT DISTINCT 0 AS replicate, participant_id, 1 AS multiplicity
FROM (SELECT participant_id FROM participants
      WHERE success AND experiment_id IN (SELECT experiment_id FROM query_table(experiments))
      UNION ALL
      SELECT participant_id FROM v_sample_units
      WHERE experiment_id IN (SELECT experiment_id FROM query_table(experiments)));
