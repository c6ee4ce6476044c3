-- RC working points (SPEC §4): one per distinct confidence, ties entering together.
-- `samples` names a relation (replicate, participant_id, multiplicity); the point estimate is
-- replicate 0 with every multiplicity 1, a bootstrap replicate is only other weights.
CREATE OR REPLACE MACRO rc_points(scored, samples) AS TABLE
WITH plateaus AS (
    SELECT c.series, s.replicate, c.confidence,
           sum(s.multiplicity * c.n_pred) AS k,
           sum(s.multiplicity * c.loss_sum) AS l
    FROM rc_cells(scored) AS c
    JOIN query_table(samples) AS s USING (participant_id)
    WHERE c.n_pred > 0
    GROUP BY c.series, s.replicate, c.confidence
),
running AS (
    SELECT p.series, p.replicate, p.confidence AS threshold,
           row_number() OVER w AS point,
           sum(p.k) OVER w AS k_cum,
           sum(p.l) OVER w AS l_cum
    FROM plateaus AS p
    WINDOW w AS (PARTITION BY p.series, p.replicate ORDER BY p.confidence DESC
                 RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
scales AS (SELECT series, any_value(loss_scale) AS loss_scale FROM query_table(scored) GROUP BY series),
curve AS (
    SELECT r.series, r.replicate, r.point, r.threshold,
           CAST(r.k_cum AS BIGINT) AS k_cum, CAST(t.n_total AS BIGINT) AS n_total,
           CAST(r.k_cum AS DOUBLE) / CAST(t.n_total AS DOUBLE) AS coverage,
           (r.l_cum / sc.loss_scale) / CAST(r.k_cum AS DOUBLE) AS selective_risk,
           (r.l_cum / sc.loss_scale) / CAST(t.n_total AS DOUBLE) AS generalized_risk
    FROM running AS r
    JOIN rc_totals(scored, samples) AS t USING (series, replicate)
    JOIN scales AS sc USING (series)
)
-- each point carries its predecessor, so areas are sums of independent segments
SELECT *,
       lag(coverage) OVER w AS coverage_prev,
       lag(selective_risk) OVER w AS selective_risk_prev,
       lag(generalized_risk) OVER w AS generalized_risk_prev,
       max(coverage) OVER (PARTITION BY series, replicate) AS coverage_last
FROM curve
WINDOW w AS (PARTITION BY series, replicate ORDER BY point);
