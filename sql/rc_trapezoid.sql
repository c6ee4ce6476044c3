-- The trapezoid under y from (x0, y0) to (x, y) — numpy.trapezoid's d * (y0 + y) / 2.0 —
-- cut at `upto`: whole when x <= upto, up to `upto` with y linearly interpolated there when
-- x0 < upto < x, else nothing (docs/metrics.md, truncated areas). A NULL x0 (no previous point, in
-- item-trapezoid) gives nothing.
CREATE OR REPLACE MACRO rc_trapezoid(x0, y0, x, y, upto) AS
    CASE WHEN x0 IS NULL THEN 0.0
         WHEN x <= upto THEN (x - x0) * (y0 + y) / 2.0
         WHEN x0 < upto THEN (upto - x0) * (y0 + (y0 + (upto - x0) * (y - y0) / (x - x0))) / 2.0
         ELSE 0.0 END;
