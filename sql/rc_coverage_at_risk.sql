-- Coverage@Risk(alpha): the largest working-point coverage whose selective risk <= alpha,
-- with that point's risk and threshold. No row when no point qualifies (coverage 0).
CREATE OR REPLACE MACRO rc_coverage_at_risk(points, alphas) AS TABLE
SELECT p.series, p.replicate, a.alpha,
       max(p.coverage) AS coverage,
       arg_max(p.selective_risk, p.point) AS risk,
       arg_max(p.threshold, p.point) AS threshold
FROM query_table(points) AS p
JOIN query_table(alphas) AS a ON p.selective_risk <= a.alpha
GROUP BY p.series, p.replicate, a.alpha;
