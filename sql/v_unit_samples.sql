-- The point-estimate sample: replicate 0, every participant (or sample cluster) of the
-- warehouse once (warehouse_units of every experiment). A helper of the macros, in the schema
-- `internal`.
CREATE OR REPLACE VIEW internal.v_unit_samples AS
FROM warehouse_units('experiments');
