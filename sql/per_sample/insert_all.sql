-- template: insert_all
-- fills: target, ids, starts, table, values
-- Every experiment's rows into `target` at once (beyond SLICED_MAX experiments): `table` is
-- the ordered copy, `ids` and `starts` list literals indexed by exp_no (the experiment's id
-- and its first rowid), `values` the target's remaining columns.
INSERT INTO {{target}}
SELECT {{ids}}[exp_no], rowid - {{starts}}[exp_no], {{values}}
FROM {{table}}
