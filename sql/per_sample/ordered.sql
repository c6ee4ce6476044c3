-- template: ordered
-- fills: ordered, typed, experiments
-- The staged rows sorted by (experiment, file row), each row with its experiment's exp_no:
-- the copy made when the file's experiments are not already consecutive in sorted order.
CREATE TEMP TABLE {{ordered}} AS
SELECT t.*, e.exp_no FROM {{typed}} AS t
JOIN {{experiments}} AS e USING (method, seed, split, domain)
ORDER BY e.exp_no, t.row_number
