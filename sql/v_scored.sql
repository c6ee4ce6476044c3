-- Every unit of every experiment, scored by every CSF the experiment supports, under every
-- loss the experiment has (warehouse_scored over all experiments), with the experiment, CSF
-- and loss of each integer series key. A helper for debugging the macros, in the schema
-- `internal`, out of the user's table listings.
CREATE OR REPLACE VIEW internal.v_scored AS
WITH confidences AS (
    FROM warehouse_confidences('experiments', NULL)
),
keys AS (
    FROM warehouse_series('confidences', 'experiments', 1)
)
SELECT k.experiment_id, k.csf, k.loss, s.*
FROM warehouse_scored('confidences', 'keys') AS s
JOIN keys AS k USING (series);
