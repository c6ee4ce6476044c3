-- The point-estimate sample: replicate 0, every participant once.
CREATE OR REPLACE VIEW v_unit_samples AS
SELECT DISTINCT 0 AS replicate, participant_id, 1 AS multiplicity
FROM participants
WHERE success;
