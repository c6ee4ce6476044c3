-- Contract: in the BI snapshot, v_metrics has the warehouse view's columns and rows but reads the
-- materialised table `metrics`, so README query 1 is a scan instead of a recomputation.
CREATE OR REPLACE VIEW v_metrics AS
SELECT *
FROM metrics
