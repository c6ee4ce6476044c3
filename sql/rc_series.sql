-- The series of a scored relation: each with its population (the participants whose items it
-- ranks) and its loss scale. Does not depend on the replicates (`evaluate` builds it once).
CREATE OR REPLACE MACRO rc_series(scored) AS TABLE
SELECT series, population, any_value(loss_scale) AS loss_scale
FROM query_table(scored)
GROUP BY series, population;
