-- Point metrics (default estimator, AURC@0.5) of every experiment x supported CSF x loss,
-- with its run and mode: what `riskcov evaluate --bootstrap-resamples 0` reports, as SQL;
-- prob_* is the calibration of a per-sample file's `prob` (docs/metrics.md), per experiment. A scan of
-- the table `metrics`, which riskcov.warehouse.metric_tables fills at ingest from warehouse_metrics.
CREATE OR REPLACE VIEW v_metrics AS
SELECT *
FROM metrics;
-- the view's description, for BI tools
COMMENT ON VIEW v_metrics IS 'Point metrics of every experiment x supported CSF x loss: the table metrics.';
