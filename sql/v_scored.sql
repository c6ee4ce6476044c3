-- Every unit of every experiment, scored by every CSF the experiment supports, under every
-- loss the experiment has (warehouse_scored over all experiments). A helper for debugging the
-- macros, in the schema `internal`, out of the user's table listings.
CREATE OR REPLACE VIEW internal.v_scored AS
FROM warehouse_scored('experiments', NULL);
