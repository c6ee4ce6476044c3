-- portable: points
-- reads: cells, samples, totals
-- columns: series, replicate, plateau, threshold, k, k_cum, l_cum, n_total, k_total, coverage, selective_risk, generalized_risk, coverage_prev, selective_risk_prev, generalized_risk_prev, coverage_last
-- RC working points (docs/metrics.md): one per plateau a replicate reaches, ties entering
-- together. A replicate's plateau increments are the ranked cells weighted by the clusters'
-- multiplicities (no per-replicate sort of units); the running sums are windows ORDER BY
-- plateau (a total order within a block), never the order rows arrive in. The loss sums are
-- exact DECIMALs, so the points are the same in any engine and any thread count. A point
-- carries its predecessor's values, so areas need no second window over other rows.
WITH increments AS (
    SELECT c.series, s.replicate, c.plateau, max(c.confidence) AS threshold,
           sum(s.multiplicity * c.n_pred) AS k,
           sum(CAST(s.multiplicity AS DECIMAL(10, 0)) * c.loss_sum) AS l
    FROM cells AS c
    JOIN samples AS s ON s.cluster = c.cluster
    WHERE c.n_pred > 0
    GROUP BY c.series, s.replicate, c.plateau
),
running AS (
    SELECT series, replicate, plateau, threshold, k, l,
           sum(k) OVER (PARTITION BY series, replicate ORDER BY plateau
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS k_cum,
           sum(l) OVER (PARTITION BY series, replicate ORDER BY plateau
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS l_cum
    FROM increments
),
measured AS (
    SELECT r.series, r.replicate, r.plateau, r.threshold, r.k, r.k_cum,
           CAST(r.k_cum AS DOUBLE) AS kc, CAST(r.k_cum - r.k AS DOUBLE) AS kp,
           CAST(r.l_cum AS DOUBLE) / t.loss_scale AS lc,
           CAST(r.l_cum - r.l AS DOUBLE) / t.loss_scale AS lp,
           CAST(r.l_cum AS DOUBLE) AS l_cum,
           t.n_total, t.k_total, CAST(t.n_total AS DOUBLE) AS n
    FROM running AS r
    JOIN totals AS t ON t.series = r.series AND t.replicate = r.replicate
)
SELECT series, replicate, plateau, threshold, k, k_cum, l_cum, n_total, k_total,
       kc / n AS coverage,
       lc / kc AS selective_risk,
       lc / n AS generalized_risk,
       CASE WHEN kp > 0 THEN kp / n END AS coverage_prev,
       CASE WHEN kp > 0 THEN lp / kp END AS selective_risk_prev,
       CASE WHEN kp > 0 THEN lp / n END AS generalized_risk_prev,
       CAST(k_total AS DOUBLE) / n AS coverage_last
FROM measured
