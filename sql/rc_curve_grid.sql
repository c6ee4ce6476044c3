-- An RC curve read on a coverage grid, as a right-continuous step: at grid coverage c each
-- (series, replicate) takes the values of its first working point (in plateau order) whose
-- coverage >= c, and NULL values when c is above its Cmax (its last point's coverage).
-- `points` names a relation (series, replicate, coverage, selective_risk, generalized_risk)
-- of working points whose coverage increases strictly along the plateaus (rc_points does; a
-- single curve passes 0 AS replicate); `grid` names a relation with a DOUBLE column
-- `coverage`. One row per (series, replicate, grid coverage): series, replicate, coverage
-- (the grid's), achieved (the chosen point's coverage), selective_risk, generalized_risk.
-- Rows come in no particular order: callers sort. Used by the bootstrap bands of
-- `riskcov plot --ci` (replicate curves) and by curve sampling at K points.
CREATE OR REPLACE MACRO rc_curve_grid(points, grid) AS TABLE
WITH curves AS (
    SELECT DISTINCT series, replicate FROM query_table(points)
),
cells AS (
    SELECT c.series, c.replicate, CAST(g.coverage AS DOUBLE) AS coverage
    FROM curves AS c CROSS JOIN query_table(grid) AS g
)
-- an ASOF join on coverage <= point coverage picks the smallest such point coverage, i.e. the
-- first point in plateau order; no sort of the points and no window needed
SELECT x.series, x.replicate, x.coverage, p.coverage AS achieved,
       p.selective_risk, p.generalized_risk
FROM cells AS x
ASOF LEFT JOIN query_table(points) AS p
    ON x.series = p.series AND x.replicate = p.replicate AND x.coverage <= p.coverage;
