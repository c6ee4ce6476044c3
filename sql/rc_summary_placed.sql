-- rc_summary_of's scalars (which it says what) with the oracle's runs given placed: `placed` names
-- a relation as rc_placed_runs gives (rc_oracle_placed reads it), the other arguments are
-- rc_summary_of's.
CREATE OR REPLACE MACRO rc_summary_placed(losses, placed, points, totals, harmonic, area_c, estimator)
AS TABLE
WITH pop AS (
    SELECT DISTINCT series, population, replicate FROM query_table(totals)
)
SELECT m.*, o.aurc_optimal, o.augrc_optimal,
       m.aurc_full - o.aurc_optimal AS eaurc,
       m.augrc_full - o.augrc_optimal AS eaugrc,
       o.losses_binary, o.aurc_optimal_population,
       m.aurc_full - o.aurc_optimal_population AS eaurc_population
FROM rc_metrics(points, totals, area_c, estimator) AS m
JOIN pop USING (series, replicate)
JOIN rc_oracle_placed(losses, placed, totals, harmonic, estimator) AS o
    ON o.population = pop.population AND o.replicate = m.replicate;
