-- rc_running_stream's working points (the same columns, bit for bit) from ONE running sum
-- instead of two: each cell adds k * unit + l, and the running sum k_cum * unit + l_cum is
-- split back by floor(/ unit). A running sum without ORDER BY costs about the same per row
-- whatever it sums, and the stream's two sums were most of its cost.
-- Exact only where the caller proves it (plateau_stream.packing_unit): `unit` a power of two,
-- every l >= 0 and integer-valued, the block's loss total below `unit` and
-- (k_total + 1) * unit <= 2^53. Then every partial sum is an integer below 2^53 (exact), and
-- l_cum (0 <= l_cum <= the total < unit) is its remainder: floor(sum / unit) is k_cum exactly
-- (dividing by a power of two is exact), and sum - k_cum * unit is l_cum exactly. Elsewhere
-- the caller takes rc_running_stream. Arguments and order as rc_running_stream's.
CREATE OR REPLACE MACRO rc_running_stream_packed(cells, n_total, k_total, loss_scale, unit) AS TABLE
WITH packed AS (
    SELECT series, replicate, plateau, threshold,
           sum(k * unit + l) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS kl_cum,
           lead(plateau) OVER () AS next_plateau
    FROM query_table(cells)
),
running AS (
    SELECT series, replicate, plateau, threshold, floor(kl_cum / unit) AS k_cum,
           kl_cum - floor(kl_cum / unit) * unit AS l_cum, next_plateau
    FROM packed
)
FROM rc_stream_points('running', n_total, k_total, loss_scale);
