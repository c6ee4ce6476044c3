-- The area under the risk E(c)/c of one segment of fd-shifts' interpolated curve (docs/metrics.md):
-- from the kept point (c0, e0) to the next kept point (c, e), coverage c and error mass E =
-- generalized risk, with E linear in c between them (randomising between two thresholds):
--   (e - e0) + (e0 * c - e * c0) / (c - c0) * ln(c / c0)
-- With no previous kept point (c0 NULL) the risk is constant from coverage 0: area e.
CREATE OR REPLACE MACRO rc_log_segment(c0, e0, c, e) AS
    CASE WHEN c0 IS NULL THEN e
         ELSE (e - e0) + (e0 * c - e * c0) / (c - c0) * ln(c / c0) END;
