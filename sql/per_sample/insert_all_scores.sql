-- template: insert_all_scores
-- fills: ids, starts, table, csfs, columns, n_csfs
-- Every experiment's scores into sample_scores at once, in the table's storage order
-- (experiment, CSF, sample): `csfs` and `columns` list literals of the CSF names and their
-- columns of `table` (the ordered copy), `ids` and `starts` indexed by exp_no.
INSERT INTO sample_scores
SELECT {{ids}}[exp_no], i, {{csfs}}[j], confidence
FROM (SELECT exp_no, rowid - {{starts}}[exp_no] AS i, j, {{columns}}[j] AS confidence
      FROM {{table}} CROSS JOIN range(1, {{n_csfs}} + 1) AS c(j))
ORDER BY exp_no, j, i
