-- RC working points (docs/metrics.md, working points) of one block from its weighted cells'
-- running sums in plateau order: the part of the "sort once" stream (metrics/plateau_stream.py)
-- after the running sums, shared by rc_running_stream (two sums) and rc_running_stream_packed
-- (one packed sum). `running` names a relation (series, replicate, plateau, threshold, k_cum,
-- l_cum, next_plateau) with one row per drawn cell in plateau order (plateau 1 = most
-- confident): the block's covered items and raw loss up to and including the cell, and the
-- next cell's plateau (NULL after the last); n_total, k_total and loss_scale are the block's
-- rc_totals. A point is its plateau's last cell.
-- Order: lead/lag have no ORDER BY, so they follow the rows as scanned (see
-- rc_running_stream); each row checks the next one's plateau, so rows out of plateau order
-- raise an error rather than give wrong points.
CREATE OR REPLACE MACRO rc_stream_points(running, n_total, k_total, loss_scale) AS TABLE
WITH ends AS (
    SELECT series, replicate, plateau, threshold, k_cum, l_cum
    FROM query_table(running)
    WHERE CASE WHEN next_plateau < plateau
                   THEN error('rc_stream_points: cells out of plateau order')
               ELSE next_plateau IS DISTINCT FROM plateau END
),
points AS (
    SELECT series, replicate, plateau, threshold,
           k_cum - coalesce(lag(k_cum) OVER (), 0.0) AS k, k_cum, l_cum,
           coalesce(lag(l_cum) OVER (), 0.0) AS l_prev,
           n_total AS n_total, k_total AS k_total, loss_scale AS loss_scale
    FROM ends
)
FROM rc_point_columns('points');
