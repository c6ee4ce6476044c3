-- Coverage@Risk(alpha) at one alpha: rc_coverage_at_risks' rows for [alpha].
CREATE OR REPLACE MACRO rc_coverage_at_risk(points, alpha) AS TABLE
FROM rc_coverage_at_risks(points, [alpha]);
