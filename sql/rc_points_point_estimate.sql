-- The RC working points of a scored relation's point estimate (docs/metrics.md): rc_points of
-- `scored` (a relation of rc_scored's shape: series, population, participant_id, item_index,
-- confidence, loss, loss_scale; confidence and loss NULL where abstained) for replicate 0 with
-- every multiplicity 1, its totals by rc_totals. Risk control's threshold rules read their cal
-- working points here, from the same macros as `evaluate`'s. Rows as rc_points', one per
-- distinct confidence per series (plateau 1 = most confident), in no particular order.
CREATE OR REPLACE MACRO rc_points_point_estimate(scored) AS TABLE
WITH once AS (
    SELECT DISTINCT 0 AS replicate, participant_id, 1 AS multiplicity FROM query_table(scored)
),
totals AS (
    FROM rc_totals(scored, 'once')
)
FROM rc_points(scored, 'once', 'totals');
