-- fd-shifts' achievable AURC with non-linear interpolation (docs/metrics.md) over a subset of the
-- plateau points, per series and replicate: the dominant points (lower convex hull in counts)
-- of 0/1 losses, or the plateau ends of item points. `kept` names those points (rc_points
-- columns; series, replicate, plateau, coverage, generalized_risk), `totals` (rc_totals) gives
-- every block a row, so a block without points has area 0. Each kept point adds the segment
-- from the previous kept point (rc_log_segment). Over every plateau point (continuous losses)
-- the same sum is rc_metrics' aurc_interpolated_points, taken in its single pass.
CREATE OR REPLACE MACRO rc_interpolated(kept, totals) AS TABLE
WITH seg AS (
    SELECT series, replicate, plateau,
           rc_log_segment(lag(coverage) OVER w, lag(generalized_risk) OVER w,
                          coverage, generalized_risk) AS area
    FROM query_table(kept)
    WINDOW w AS (PARTITION BY series, replicate ORDER BY plateau)
),
areas AS (
    SELECT series, replicate, sum(area ORDER BY plateau) AS area
    FROM seg
    GROUP BY series, replicate
)
SELECT t.series, t.replicate, coalesce(a.area, 0.0) AS aurc_achievable_interpolated
FROM query_table(totals) AS t
LEFT JOIN areas AS a USING (series, replicate);
