-- portable: effective_reliability
-- reads: points, totals, costs
-- columns: series, replicate, cost, phi, threshold, coverage
-- Effective reliability (docs/metrics-extended.md) per series, replicate and cost c of `costs`
-- (column `cost`): an accepted unit scores (1 - loss) - c * loss, an abstained or rejected one
-- 0, averaged over the N units, so at a working point Phi_c = (k_cum - (1 + c) * L) / N with L
-- the accepted loss in loss units. The best threshold is the working point of the largest
-- Phi_c, ties to the lower plateau (fewer accepted units), or accepting nothing (Phi_c = 0,
-- threshold NULL, coverage 0) when no point is above 0. Points are compared by
-- N * loss_scale * Phi_c = k_cum * loss_scale - (1 + c) * l_cum (raw loss), exact for integer
-- losses and costs such as 0.5, 1, 2, 4, so equal values tie exactly. Every block of `totals`
-- gets rows (one without points accepts nothing). The oracle-gap area that goes with it is
-- summary's eaurc_population.
-- It runs on every bootstrap replicate, so the costs multiply few rows: of the points of a
-- block with equal l_cum only the one with the most accepted units (the highest plateau of
-- them: k_cum grows with the plateau) can win, for every cost, so the window ranks those
-- candidates alone (as the DuckDB macro rc_effective_reliability does for rounded gains; under
-- its exact packed key it thins them further by LEAD over the stored order, which Spark lacks:
-- the same rows either way).
WITH cost_list AS (
    SELECT DISTINCT CAST(cost AS DOUBLE) AS cost FROM costs
),
blocks AS (
    SELECT DISTINCT series, replicate FROM totals
),
most AS (
    SELECT series, replicate, l_cum, MAX(k_cum) AS k_cum FROM points GROUP BY series, replicate, l_cum
),
candidates AS (  -- k_cum is distinct within a block: one point per (block, l_cum)
    SELECT p.series, p.replicate, p.plateau, p.threshold, p.coverage, p.k_cum, p.l_cum, p.n_total
    FROM points AS p
    JOIN most AS m ON m.series = p.series AND m.replicate = p.replicate AND m.k_cum = p.k_cum
),
scaled AS (
    SELECT p.series, p.replicate, c.cost, p.plateau, p.threshold, p.coverage,
           CAST(p.k_cum AS DOUBLE) * t.loss_scale - (1.0 + c.cost) * p.l_cum AS gain,
           t.loss_scale * CAST(p.n_total AS DOUBLE) AS scale
    FROM candidates AS p
    JOIN totals AS t ON t.series = p.series AND t.replicate = p.replicate
    CROSS JOIN cost_list AS c
),
ranked AS (
    SELECT series, replicate, cost, threshold, coverage, gain / scale AS phi,
           row_number() OVER (PARTITION BY series, replicate, cost ORDER BY gain DESC, plateau) AS pick
    FROM scaled
)
SELECT b.series, b.replicate, c.cost,
       CASE WHEN r.phi > 0 THEN r.phi ELSE 0.0 END AS phi,
       CASE WHEN r.phi > 0 THEN r.threshold END AS threshold,
       CASE WHEN r.phi > 0 THEN r.coverage ELSE 0.0 END AS coverage
FROM blocks AS b
CROSS JOIN cost_list AS c
LEFT JOIN ranked AS r ON r.series = b.series AND r.replicate = b.replicate AND r.cost = c.cost AND r.pick = 1
