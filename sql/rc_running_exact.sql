-- rc_running's fast path (its header says why it is exact): the working points of the blocks
-- (series, replicate) whose rc_totals say `exact`, in (series, replicate, plateau) order; other
-- blocks get no rows. One ordered stream of the increments (rc_ordered_increments) with only
-- what the points need, its running sums minus the block's offsets. `evaluate` calls it alone
-- when every block is exact (integer losses: PHQ-8, 0/1), which spares rc_running's second
-- scan of `plateaus` for the limb path.
CREATE OR REPLACE MACRO rc_running_exact(plateaus, totals) AS TABLE
WITH running AS (
    SELECT series, replicate, plateau, threshold, k, l, n_total, k_total, loss_scale,
           sum(k) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - k_offset AS k_cum,
           sum(l) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - l_offset AS l_cum
    FROM rc_ordered_increments(plateaus, totals)
),
points AS (
    SELECT *, l_cum - l AS l_prev FROM running
)
FROM rc_point_columns('points');
