-- portable: mae_at_coverage
-- reads: points, coverages
-- columns: series, replicate, requested, achieved, value
-- MAE@coverage c for every c of `coverages` (column `c`): the selective risk of the first
-- working point whose coverage >= c, i.e. the point whose predecessor is below c, with that
-- point's coverage (docs/metrics.md). No row where a replicate's curve never gets there.
WITH grid AS (
    SELECT DISTINCT CAST(c AS DOUBLE) AS c FROM coverages
)
SELECT p.series, p.replicate, g.c AS requested, p.coverage AS achieved, p.selective_risk AS value
FROM points AS p
JOIN grid AS g ON p.coverage >= g.c AND coalesce(p.coverage_prev, 0.0) < g.c
