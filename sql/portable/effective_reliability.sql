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
WITH cost_list AS (
    SELECT DISTINCT CAST(cost AS DOUBLE) AS cost FROM costs
),
blocks AS (
    SELECT DISTINCT series, replicate FROM totals
),
scaled AS (
    SELECT p.series, p.replicate, c.cost, p.plateau, p.threshold, p.coverage,
           CAST(p.k_cum AS DOUBLE) * t.loss_scale - (1.0 + c.cost) * p.l_cum AS gain,
           t.loss_scale * CAST(p.n_total AS DOUBLE) AS scale
    FROM points AS p
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
