-- rc_running_exact's working points (the same rows in the same order, bit for bit) from ONE
-- running sum instead of two: each increment adds k * unit + l, and the stream's running sum
-- K * unit + L (K, L: the stream's running sums of k and l) is split back by
-- floor(* (1 / unit)) before the block's offsets are subtracted. A running sum without ORDER
-- BY (DuckDB's streaming window) costs about the same per row whatever it sums, so one sum
-- costs about half of two (docs/performance.md, the stream's running sums).
-- Exact only where the caller proves it (metrics/engine.py, packing_unit): every block of
-- `totals` exact (rc_totals: integer-valued losses), every l >= 0 (every loss >= 0), `unit` a
-- power of two above the stream's loss total (the largest l_offset + l_total) and
-- (K_total + 1) * unit <= 2^53 with K_total the stream's item total (the largest k_offset +
-- k_total). Then every partial sum is an integer below 2^53 (exact in any order), L is its
-- remainder (0 <= L <= the loss total < unit), floor(sum * (1 / unit)) is K exactly (1 / unit
-- and the product by it are exact for a power of two) and sum - K * unit is L exactly: the
-- two sums rc_running_exact takes, so the same k_cum, l_cum and l_prev. (Were L ever to
-- reach unit, every later row's k_cum would be off, and rc_metrics' check that a block's
-- points end at its k_total would stop the evaluation.) Arguments and order as
-- rc_running_exact's.
CREATE OR REPLACE MACRO rc_running_exact_packed(plateaus, totals, unit) AS TABLE
WITH packed AS (
    SELECT series, replicate, plateau, threshold, k, l, n_total, k_total, loss_scale, k_offset, l_offset,
           sum(k * unit + l) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS kl_run
    FROM rc_ordered_increments(plateaus, totals)
),
split AS (
    SELECT *, floor(kl_run * (1.0 / unit)) AS k_run FROM packed
),
running AS (
    SELECT series, replicate, plateau, threshold, k, l, n_total, k_total, loss_scale,
           k_run - k_offset AS k_cum, (kl_run - k_run * unit) - l_offset AS l_cum
    FROM split
),
points AS (
    SELECT *, l_cum - l AS l_prev FROM running
)
FROM rc_point_columns('points');
