-- rc_running_stream's working points (the same columns, bit for bit) from ONE running sum
-- instead of two: each cell adds k * unit + l, and the running sum k_cum * unit + l_cum is
-- split back by floor(* (1 / unit)). A running sum without ORDER BY costs about the same per
-- row whatever it sums, and the stream's two sums were most of its cost.
-- Exact only where the caller proves it (plateau_stream.packing_unit): `unit` a power of two,
-- every l >= 0 and integer-valued, the block's loss total below `unit` and
-- (k_total + 1) * unit <= 2^53. Then every partial sum is an integer below 2^53 (exact), and
-- l_cum (0 <= l_cum <= the total < unit) is its remainder: floor(sum * (1 / unit)) is k_cum
-- exactly (1 / unit and the product by it are exact for a power of two), and
-- sum - k_cum * unit is l_cum exactly. Elsewhere the caller takes rc_running_stream.
-- Arguments and order as rc_running_stream's.
CREATE OR REPLACE MACRO rc_running_stream_packed(cells, n_total, k_total, loss_scale, unit) AS TABLE
WITH packed AS (
    SELECT series, replicate, plateau, threshold,
           sum(k * unit + l) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS kl_cum,
           lead(plateau) OVER () AS next_plateau
    FROM query_table(cells)
),
split AS (
    SELECT series, replicate, plateau, threshold, kl_cum, floor(kl_cum * (1.0 / unit)) AS k_cum,
           next_plateau
    FROM packed
),
running AS (
    SELECT series, replicate, plateau, threshold, k_cum, kl_cum - k_cum * unit AS l_cum, next_plateau
    FROM split
)
FROM rc_stream_points('running', n_total, k_total, loss_scale);
