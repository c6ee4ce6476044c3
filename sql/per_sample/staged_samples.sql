-- template: staged_samples
-- fills: table, cluster_order
-- The TEMP VIEW staged_samples (riskcov.formats.per_sample.read): one row per sample of
-- `table`, with its 0-based index in its experiment and its cluster's dense rank by
-- `cluster_order` (the numeric key, or the text). Computed only when read.
CREATE TEMP VIEW staged_samples AS
SELECT method, seed, split, domain, row_number,
    row_number() OVER (PARTITION BY method, seed, split, domain ORDER BY row_number) - 1 AS sample_index,
    sample_id, cluster,
    dense_rank() OVER (PARTITION BY method, seed, split, domain ORDER BY {{cluster_order}}) AS cluster_no,
    abstained, loss, label, prediction, prob
FROM {{table}}
