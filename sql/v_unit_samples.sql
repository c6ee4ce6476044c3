-- The point-estimate sample: replicate 0, every participant (or sample cluster) once. A helper
-- of the macros, in the schema `internal`.
CREATE OR REPLACE VIEW internal.v_unit_samples AS
SELECT DISTINCT 0 AS replicate, participant_id, 1 AS multiplicity
FROM (SELECT participant_id FROM participants WHERE success
      UNION ALL
      SELECT participant_id FROM v_sample_units);
