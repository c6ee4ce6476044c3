-- Every scalar of SPEC §4 that is not a grid lookup, per series and replicate: rc_metrics'
-- Cmax and areas with rc_oracle_of's optimal areas and the excess metrics (eaurc = aurc -
-- aurc_optimal, eaugrc likewise; eaurc_population = aurc - aurc_optimal_population, SPEC
-- §9.3, NULL unless the losses are 0/1), defined here once for `evaluate` and `v_metrics`.
-- The arguments are rc_oracle_of's (`losses`: rc_loss_counts, built once per evaluation) and
-- rc_metrics'; a series reaches its population's oracle through totals. rc_summary composes
-- it from the scored relation.
CREATE OR REPLACE MACRO rc_summary_of(losses, samples, points, totals, harmonic, area_c, estimator)
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
JOIN rc_oracle_of(losses, samples, totals, harmonic, estimator) AS o
    ON o.population = pop.population AND o.replicate = m.replicate;
