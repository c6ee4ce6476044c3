-- rc_totals_of's blocks (series, replicate) with their offsets, from the weighted sums of each
-- population and replicate: `weighted` names a relation (population, replicate, n_total,
-- k_total, l_total, integral) (rc_totals_of's join of rc_people with a sample table, or the
-- sort-once path's sums over participants in draw order, metrics/plateau_stream.py: the same
-- rows), `series_info` rc_series(scored). rc_totals_of says what the columns mean.
CREATE OR REPLACE MACRO rc_totals_weighted(series_info, weighted) AS TABLE
WITH blocks AS (
    SELECT se.series, se.population, w.replicate, w.n_total, w.k_total, w.l_total, se.loss_scale,
           w.integral AND sum(CASE WHEN w.integral THEN w.l_total END) OVER () < 2.0 ^ 50 AS exact
    FROM query_table(series_info) AS se
    JOIN query_table(weighted) AS w USING (population)
)
SELECT series, population, replicate, n_total, k_total, l_total, loss_scale,
       coalesce(sum(CASE WHEN exact THEN k_total ELSE 0 END) OVER before, 0) AS k_offset,
       coalesce(sum(CASE WHEN exact THEN l_total ELSE 0.0 END) OVER before, 0.0) AS l_offset,
       exact
FROM blocks
WINDOW before AS (ORDER BY series, replicate ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);
