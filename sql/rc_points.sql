-- RC working points (SPEC §4): one per distinct confidence, ties entering together (a RANGE
-- frame over confidence DESC). `samples` names a relation (replicate, participant_id,
-- multiplicity): the point estimate is replicate 0 with every multiplicity 1; a bootstrap
-- replicate is only other weights. A point also carries its predecessor's values, derived
-- from the running sums, so areas need no second window.
CREATE OR REPLACE MACRO rc_points(scored, samples, totals) AS TABLE
WITH cells AS (
    FROM rc_cells(scored) WHERE n_pred > 0
),
plateaus AS (
    SELECT c.series, s.replicate, c.plateau, c.confidence AS threshold,
           s.multiplicity * c.n_pred AS k, s.multiplicity * c.loss_sum AS l
    FROM cells AS c
    JOIN query_table(samples) AS s USING (participant_id)
    WHERE NOT c.shared
    UNION ALL
    SELECT c.series, s.replicate, c.plateau, any_value(c.confidence),
           sum(s.multiplicity * c.n_pred), sum(s.multiplicity * c.loss_sum)
    FROM cells AS c
    JOIN query_table(samples) AS s USING (participant_id)
    WHERE c.shared
    GROUP BY c.series, s.replicate, c.plateau
),
running AS (
    SELECT series, replicate, plateau, threshold, k, l,
           sum(k) OVER w AS k_cum,
           sum(l) OVER w AS l_cum
    FROM plateaus
    WINDOW w AS (PARTITION BY series, replicate ORDER BY threshold DESC
                 RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
SELECT r.series, r.replicate, r.plateau, r.threshold,
       CAST(r.k_cum AS BIGINT) AS k_cum, t.n_total,
       CAST(r.k_cum AS DOUBLE) / t.n_total AS coverage,
       (r.l_cum / t.loss_scale) / CAST(r.k_cum AS DOUBLE) AS selective_risk,
       (r.l_cum / t.loss_scale) / t.n_total AS generalized_risk,
       CASE WHEN r.k_cum > r.k THEN CAST(r.k_cum - r.k AS DOUBLE) / t.n_total END
           AS coverage_prev,
       CASE WHEN r.k_cum > r.k
            THEN ((r.l_cum - r.l) / t.loss_scale) / CAST(r.k_cum - r.k AS DOUBLE) END
           AS selective_risk_prev,
       CASE WHEN r.k_cum > r.k THEN ((r.l_cum - r.l) / t.loss_scale) / t.n_total END
           AS generalized_risk_prev,
       CAST(t.k_total AS DOUBLE) / t.n_total AS coverage_last
FROM running AS r
JOIN query_table(totals) AS t USING (series, replicate);
