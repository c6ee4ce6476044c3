-- The item-step estimator's weight of point k's y (docs/metrics.md): y for the points within
-- floor(upto * N), the fraction (upto * N - floor(upto * N)) of the next one, nothing after.
-- rc_metrics divides the sum by N, as docs/metrics.md writes sum(...) / N.
CREATE OR REPLACE MACRO rc_step(k, y, n, upto) AS
    CASE WHEN k <= floor(upto * n) THEN y
         WHEN k = floor(upto * n) + 1 THEN (upto * n - floor(upto * n)) * y
         ELSE 0.0 END;
