-- template: insert_block
-- fills: target, experiment_id, table, start, last, values
-- One experiment's rows into `target` (samples, sample_scores or sample_attributes): the
-- rows of `table` at rowids start..last, in their order, under `experiment_id`, each row's
-- sample index its offset in the block; `values` the target's remaining columns.
INSERT INTO {{target}}
SELECT {{experiment_id}}, rowid - {{start}}, {{values}}
FROM {{table}} WHERE rowid BETWEEN {{start}} AND {{last}}
