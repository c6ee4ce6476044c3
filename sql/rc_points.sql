-- RC working points (SPEC §4): one per distinct confidence (plateau), ties entering together,
-- in descending confidence order (plateau 1 = most confident). `samples` names a relation (replicate, participant_id,
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
-- Running sums in one ordered stream instead of a partitioned window (4x faster here): the
-- sort is total, a window with an empty frame spec streams in that order (DuckDB keeps the
-- order of ORDER BY through projections and streaming windows), and a block's sums are the
-- stream's minus the sums of the blocks before it (rc_totals' offsets, joined before the
-- sort so nothing after it reorders rows). The summands are integer-valued doubles (counts
-- and raw losses), so the sums are exact and the subtraction loses nothing. The output is
-- in (series, replicate, plateau) order; rc_metrics relies on it and checks block ends.
ordered AS (
    SELECT p.series, p.replicate, p.plateau, p.threshold,
           CAST(p.k AS DOUBLE) AS k, p.l,
           t.n_total, t.k_total, t.loss_scale, t.k_offset, t.l_offset
    FROM plateaus AS p JOIN query_table(totals) AS t USING (series, replicate)
    ORDER BY p.series, p.replicate, p.plateau
),
running AS (
    SELECT *,
           sum(k) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - k_offset AS k_cum,
           sum(l) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - l_offset AS l_cum
    FROM ordered
)
SELECT series, replicate, plateau, threshold,
       CAST(k_cum AS BIGINT) AS k_cum, n_total, k_total,
       k_cum / n_total AS coverage,
       (l_cum / loss_scale) / k_cum AS selective_risk,
       (l_cum / loss_scale) / n_total AS generalized_risk,
       CASE WHEN k_cum > k THEN (k_cum - k) / n_total END AS coverage_prev,
       CASE WHEN k_cum > k THEN ((l_cum - l) / loss_scale) / (k_cum - k) END
           AS selective_risk_prev,
       CASE WHEN k_cum > k THEN ((l_cum - l) / loss_scale) / n_total END
           AS generalized_risk_prev,
       CAST(k_total AS DOUBLE) / n_total AS coverage_last
FROM running;
