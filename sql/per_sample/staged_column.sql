-- template: staged_column
-- fills: table, name, column, key, value
-- One staged column of `table` as rows (sample, `name`): the part of the TEMP VIEWs
-- staged_scores (key csf, value confidence) and staged_attributes (key name, value value)
-- for one score or attribute column; the views are these parts joined by UNION ALL.
SELECT method, seed, split, domain, sample_id, {{name}} AS {{key}}, {{column}} AS {{value}} FROM {{table}}
