-- Every unit of every experiment, scored by every CSF the experiment supports, under every
-- loss the experiment has (warehouse_scored over all experiments).
CREATE OR REPLACE VIEW v_scored AS
FROM warehouse_scored('experiments');
