-- The scored relation of every series of `keys` (warehouse_series), from `scored`, which holds
-- the units of their sources only (warehouse_scored over the series warehouse_sources names
-- sources): each series' rows are its source's with its own series key, population and
-- loss_scale (as rc_scored joins it from v_experiment_losses), so the rows warehouse_scored
-- would give that series. For the macros that read a series' units besides its working points
-- (rc_series, rc_people, the oracle's units, rc_class_cells, rc_points for inexact blocks).
CREATE OR REPLACE MACRO warehouse_shared_scored(scored, keys) AS TABLE
WITH keyed AS (
    SELECT k.series, k.population, f.source, CAST(l.loss_scale AS DOUBLE) AS loss_scale
    FROM query_table(keys) AS k
    JOIN warehouse_sources(keys) AS f USING (series)
    JOIN v_experiment_losses AS l USING (experiment_id, loss)
)
SELECT k.series, k.population, sc.participant_id, sc.item_index, sc.confidence, sc.loss,
       k.loss_scale
FROM query_table(scored) AS sc
JOIN keyed AS k ON k.source = sc.series;
