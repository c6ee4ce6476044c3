-- template: experiments
-- fills: experiments, typed, base
-- The experiments of a staged per-sample table (docs/formats.md): one row per (method, seed,
-- split, domain) of `typed`, numbered exp_no 1.. in sorted order, with its sample and
-- abstention counts, its first and last data row, and whether its rows lie at rowids
-- base + row_number - 1 (the file's order kept by the table itself).
CREATE TEMP TABLE {{experiments}} AS
SELECT *, row_number() OVER (ORDER BY method, seed, split, domain) AS exp_no FROM (
    SELECT method, seed, split, domain, count(*) AS n, count(*) FILTER (WHERE abstained) AS n_abstained,
        min(row_number) AS first_row, max(row_number) AS last_row,
        bool_and(rowid - {{base}} + 1 = row_number) AS by_rowid
    FROM {{typed}} GROUP BY ALL)
