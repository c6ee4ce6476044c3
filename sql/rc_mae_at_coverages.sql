-- MAE@coverage c for every c of a list: the selective risk of the first working point whose
-- coverage >= c, i.e. the point whose predecessor is below c (item-step: the point
-- k* = ceil(c * N)), with that point's coverage. No row for a (series, replicate) whose curve
-- never gets there. One pass over the points, each joining the coverages it answers (a filter
-- per coverage scanned them once per coverage); rc_mae_at_coverage is one c of it (rc_mae_at_coverage.sql).
CREATE OR REPLACE MACRO rc_mae_at_coverages(points, coverages, estimator) AS TABLE
WITH grid AS (
    SELECT DISTINCT c FROM (SELECT CAST(unnest(coverages) AS DOUBLE) AS c)
)
SELECT p.series, p.replicate, g.c AS requested,
       CASE WHEN estimator = 'item-step' THEN ceil(g.c * p.n_total) / p.n_total
            ELSE p.coverage END AS achieved,
       p.selective_risk AS value
FROM query_table(points) AS p
JOIN grid AS g
    ON CASE WHEN estimator = 'item-step' THEN p.k_cum = ceil(g.c * p.n_total)
            ELSE p.coverage >= g.c AND coalesce(p.coverage_prev, 0.0) < g.c END;
