-- rc_class_cells of the scored relation `scored` for the series of `series` (a relation
-- (series, experiment_id)) whose experiment is a per-sample one with a label on every sample:
-- each unit's label read from `samples` (item_index is the sample_index). What the
-- class-balanced metrics weight (rc_balanced_of), for `evaluate` and the stored metrics alike.
CREATE OR REPLACE MACRO warehouse_class_cells(scored, series) AS TABLE
WITH labelled_experiments AS (
    SELECT experiment_id
    FROM samples
    WHERE experiment_id IN (SELECT experiment_id FROM query_table(series))
    GROUP BY experiment_id
    HAVING count(*) = count(label)
),
labelled AS (
    SELECT s.series, s.participant_id, s.confidence, s.loss, s.loss_scale, u.label
    FROM query_table(scored) AS s
    JOIN query_table(series) AS k USING (series)
    JOIN samples AS u ON u.experiment_id = k.experiment_id AND u.sample_index = s.item_index
    WHERE k.experiment_id IN (SELECT experiment_id FROM labelled_experiments)
)
FROM rc_class_cells(labelled);
