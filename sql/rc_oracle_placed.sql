-- rc_oracle_runs' optimal areas (which rc_oracle_of says how) from placed runs: `placed` names a
-- relation (population, replicate, v, loss_scale, c, a, la) as rc_placed_runs gives (or the few-
-- cluster path's same sums, metrics/cells.py), `losses` rc_loss_counts, `totals` rc_totals.
CREATE OR REPLACE MACRO rc_oracle_placed(losses, placed, totals, harmonic, estimator) AS TABLE
WITH kinds AS (
    SELECT population, bool_and(loss = 0 OR loss = loss_scale) AS losses_binary
    FROM query_table(losses) GROUP BY population
),
totals AS (
    SELECT DISTINCT population, replicate, n_total FROM query_table(totals)
),
terms AS (
    SELECT p.population, p.replicate, p.loss_scale, p.v, p.c, p.a, p.la,
           p.c * p.la + p.v * p.c * (p.c + 1) / 2.0 AS sum_l,
           p.c * p.v + (p.la - p.a * p.v)
               * (CAST(hb.h - ha.h AS DOUBLE) / CAST(1::HUGEINT << 100 AS DOUBLE)) AS sum_r
    FROM query_table(placed) AS p
    JOIN query_table(harmonic) AS ha ON ha.k = p.a
    JOIN query_table(harmonic) AS hb ON hb.k = p.a + p.c
),
folded AS (
    SELECT population, replicate, any_value(loss_scale) AS loss_scale,
           sum(sum_l ORDER BY v) AS sum_l, sum(sum_r ORDER BY v) AS sum_r,
           min(v) AS r_first, sum(c) AS k, sum(c * v ORDER BY v) AS l_last
    FROM terms
    GROUP BY population, replicate
)
-- with r_k = L_k / k and g_k = L_k / N over the oracle's item points, each estimator's rule:
--   plateau-trapezoid (points at 0 added): (sum r + (r_1 - r_K) / 2) / N, (sum L - L_K / 2) / N^2
--   item-trapezoid (no point at 0):        (sum r - (r_1 + r_K) / 2) / N, (sum L - (L_1 + L_K) / 2) / N^2
--   item-step:                             sum r / N,                   sum L / N^2
SELECT t.population, t.replicate,
       coalesce(CASE estimator
                    WHEN 'item-step' THEN f.sum_r
                    WHEN 'item-trapezoid' THEN f.sum_r - (f.r_first + f.l_last / f.k) / 2.0
                    ELSE f.sum_r + (f.r_first - f.l_last / f.k) / 2.0
                END / f.loss_scale / t.n_total, 0.0) AS aurc_optimal,
       coalesce(CASE estimator
                    WHEN 'item-step' THEN f.sum_l
                    WHEN 'item-trapezoid' THEN f.sum_l - (f.r_first + f.l_last) / 2.0
                    ELSE f.sum_l - f.l_last / 2.0
                END / f.loss_scale / t.n_total / t.n_total, 0.0) AS augrc_optimal,
       k.losses_binary,
       CASE WHEN k.losses_binary IS NOT TRUE THEN NULL
            WHEN coalesce(f.k, 0) = 0 THEN 0.0
            ELSE f.l_last / f.loss_scale / t.n_total
                 + (f.k / t.n_total - f.l_last / f.loss_scale / t.n_total)
                   * ln((f.k / t.n_total - f.l_last / f.loss_scale / t.n_total
                         + 2.220446049250313e-16) / (f.k / t.n_total))
       END AS aurc_optimal_population
FROM totals AS t
LEFT JOIN folded AS f USING (population, replicate)
LEFT JOIN kinds AS k USING (population);
