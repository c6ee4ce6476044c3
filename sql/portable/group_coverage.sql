-- portable: group_coverage
-- reads: grouped, thresholds
-- columns: series, alpha, grp, coverage
-- Coverage per group at given thresholds (docs/metrics-extended.md), as the macro
-- rc_group_coverage computes it: for each series, threshold and group value of `grouped`
-- (series, confidence, grp: one row per unit, confidence NULL where it abstained), the share
-- of the group's units accepted there (confidence >= threshold); abstained units count in the
-- denominator, and a NULL threshold (no qualifying working point) accepts none. `thresholds`
-- (series, alpha, threshold): evaluate --group compares the groups at each CSF's
-- Coverage@Risk(alpha) threshold.
SELECT t.series, t.alpha, g.grp,
       CAST(sum(CASE WHEN g.confidence >= t.threshold THEN 1 ELSE 0 END) AS DOUBLE) / count(*) AS coverage
FROM grouped AS g
JOIN thresholds AS t ON t.series = g.series
GROUP BY t.series, t.alpha, g.grp
