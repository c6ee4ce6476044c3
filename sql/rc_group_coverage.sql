-- Coverage per group at given thresholds (docs/metrics-extended.md): for each series, threshold
-- and group value of `grouped` (the scored relation with a `grp` column), the share of the
-- group's units accepted there (not abstained and confidence >= threshold); abstained units
-- count in the denominator. `thresholds` names a relation (series, alpha, threshold), the
-- thresholds to compare the groups at (evaluate: each CSF's Coverage@Risk(alpha) threshold).
CREATE OR REPLACE MACRO rc_group_coverage(grouped, thresholds) AS TABLE
SELECT t.series, t.alpha, g.grp,
       count(*) FILTER (WHERE g.confidence >= t.threshold) / count(*) AS coverage
FROM query_table(grouped) AS g
JOIN query_table(thresholds) AS t USING (series)
GROUP BY t.series, t.alpha, g.grp;
