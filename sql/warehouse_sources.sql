-- The source of each series of `keys` (warehouse_series): the first series of its experiment
-- and CSF. warehouse_scored gives the series of one experiment and CSF the same units (the
-- same confidences and raw losses: rc_scored's loss is the unit's loss_raw whichever loss the
-- series is under), which differ only by their series key, population and loss_scale; so the
-- metric tables score the sources only, and rc_points_once and warehouse_shared_scored give
-- every series from its source's units.
CREATE OR REPLACE MACRO warehouse_sources(keys) AS TABLE
SELECT series, min(series) OVER (PARTITION BY experiment_id, csf) AS source
FROM query_table(keys);
