-- rc_running's fast path (its header says why it is exact): the working points of the blocks
-- (series, replicate) whose rc_totals say `exact`, in (series, replicate, plateau) order; other
-- blocks get no rows. One ordered stream of the increments with only what the points need,
-- its running sums minus the block's offsets. `evaluate` calls it alone when every block is
-- exact (integer losses: PHQ-8, 0/1), which spares rc_running's second scan of `plateaus`
-- for the limb path.
CREATE OR REPLACE MACRO rc_running_exact(plateaus, totals) AS TABLE
WITH ordered AS (
    SELECT p.series, p.replicate, p.plateau, p.threshold, CAST(p.k AS DOUBLE) AS k, p.l,
           t.n_total, t.k_total, t.loss_scale, t.k_offset, t.l_offset
    FROM query_table(plateaus) AS p JOIN query_table(totals) AS t USING (series, replicate)
    WHERE t.exact
    ORDER BY series, replicate, plateau
),
running AS (
    SELECT series, replicate, plateau, threshold, k, l, n_total, k_total, loss_scale,
           sum(k) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - k_offset AS k_cum,
           sum(l) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - l_offset AS l_cum
    FROM ordered
),
points AS (
    SELECT *, l_cum - l AS l_prev FROM running
)
FROM rc_point_columns('points');
