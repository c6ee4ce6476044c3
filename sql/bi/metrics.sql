-- Contract: the rows of v_metrics (one per experiment x supported CSF x loss: point metrics of the
-- default estimator, AURC@0.5), in key order. `riskcov publish` stores this query as the table
-- `metrics` of the BI snapshot; `riskcov export` writes it as metrics.parquet / metrics.csv.
SELECT *
FROM v_metrics
ORDER BY experiment_id, csf, loss
