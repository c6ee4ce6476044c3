-- Coverage@Risk(alpha): the largest working-point coverage whose selective risk <= alpha,
-- with that point's risk and threshold; NULL when no point qualifies (coverage 0).
-- One alpha per call, as a FILTER aggregate over the points.
CREATE OR REPLACE MACRO rc_coverage_at_risk(points, alpha) AS TABLE
SELECT series, replicate, CAST(alpha AS DOUBLE) AS alpha,
       arg_max(coverage, plateau) FILTER (WHERE selective_risk <= CAST(alpha AS DOUBLE))
           AS coverage,
       arg_max(selective_risk, plateau) FILTER (WHERE selective_risk <= CAST(alpha AS DOUBLE))
           AS risk,
       arg_max(threshold, plateau) FILTER (WHERE selective_risk <= CAST(alpha AS DOUBLE))
           AS threshold
FROM query_table(points)
GROUP BY series, replicate;
