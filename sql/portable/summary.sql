-- portable: summary
-- reads: areas, oracle
-- columns: series, replicate, cmax, aurc_full, augrc_full, aurc_at_c, augrc_at_c, n_points, aurc_interpolated_points, aurc_optimal, augrc_optimal, eaurc, eaugrc, losses_binary, aurc_optimal_population, eaurc_population
-- Every scalar of the default estimator per series and replicate (docs/metrics.md): the
-- areas with the oracle's optimal areas and the excess metrics eaurc = aurc - aurc_optimal,
-- eaugrc likewise, eaurc_population = aurc - aurc_optimal_population (NULL unless 0/1 losses).
SELECT a.series, a.replicate, a.cmax, a.aurc_full, a.augrc_full, a.aurc_at_c, a.augrc_at_c,
       a.n_points, a.aurc_interpolated_points, o.aurc_optimal, o.augrc_optimal,
       a.aurc_full - o.aurc_optimal AS eaurc,
       a.augrc_full - o.augrc_optimal AS eaugrc,
       o.losses_binary, o.aurc_optimal_population,
       a.aurc_full - o.aurc_optimal_population AS eaurc_population
FROM areas AS a
JOIN oracle AS o ON o.series = a.series AND o.replicate = a.replicate
