-- RC working points from plateau increments (docs/metrics.md): `plateaus` names a relation (series,
-- replicate, plateau, threshold, k, l) of the items and raw loss each point adds (rc_plateaus;
-- or the hull's points, whose increments span the plateaus between them), `totals` their
-- rc_totals. A point carries its predecessor's values, derived from the running sums, so areas
-- need no second window and no other code derives them.
-- Running sums in one ordered stream instead of a partitioned window (faster): the
-- sort is total, a window with an empty frame spec streams in that order (DuckDB keeps the
-- order of ORDER BY through projections and streaming windows), and a block's sums are the
-- stream's minus the sums of the blocks before it. That subtraction is exact only when every
-- summand is an integer-valued double and the stream stays below 2^53, so there are two paths,
-- chosen per block by rc_totals' `exact`:
--   exact blocks (integer losses: PHQ-8 abs errors, 0/1 losses): the stream of k and l minus
--     rc_totals' offsets (joined before the sort so nothing after it reorders rows);
--   other blocks (continuous losses): l is split into three exact integer-valued limbs,
--     l = a1*u1 + a2*u2 + a3*u3 + r, with u1 a power of two such that every limb sum stays
--     below 2^51 (u1 >= max(l) * rows / 2^50, and >= 2^-450 so u3 stays a normal double:
--     sums below ~1e-140 lose relative accuracy) and u2 = u1 / 2^w, u3 = u2 / 2^w where
--     w = 51 - ceil(log2(rows + 1)); each limb is streamed and offset exactly (offsets from
--     per-block limb sums, exact in any order), and the block's cumulative loss is
--     (A1*u1 + A2*u2) + A3*u3: the exact sum of its increments to within the dropped r
--     (< u3 = u1 / 2^(2w) per row, about 2^-80 of max(l) per row at 16M rows) and two
--     roundings, whatever the row order and thread count. A point's predecessor values come
--     from the same limbs minus its own, so they equal the previous point's bit for bit.
-- (Not a partitioned window for them: besides being slower, nothing pins the order in which
-- DuckDB's segment tree combines a partition's summands, so its last bit is not guaranteed.)
-- The exact path is rc_running_exact (which `evaluate` calls alone when every block is exact,
-- or rc_running_exact_packed, its rows from one running sum, where the bounds allow);
-- each path joins `plateaus` with `totals` itself, and a path whose blocks are all of the
-- other kind joins no rows.
-- The output is in (series, replicate, plateau) order within each path (the paths' blocks are
-- disjoint); rc_metrics relies on every block's points being contiguous and in plateau order.
CREATE OR REPLACE MACRO rc_running(plateaus, totals) AS TABLE
WITH inexact AS (
    SELECT p.series, p.replicate, p.plateau, p.threshold,
           CAST(p.k AS DOUBLE) AS k, p.l, t.n_total, t.k_total, t.loss_scale
    FROM query_table(plateaus) AS p JOIN query_table(totals) AS t USING (series, replicate)
    WHERE NOT t.exact
),
units AS (
    SELECT u1, u1 / 2.0 ^ w AS u2, u1 / 2.0 ^ (2 * w) AS u3
    FROM (SELECT 2.0 ^ ceil(log2(greatest(max(l) * count(*), 2.0 ^ -400)) - 50) AS u1,
                 51 - ceil(log2(count(*) + 1)) AS w
          FROM inexact)
),
limb1 AS (
    SELECT i.*, u.u1, u.u2, u.u3, floor(i.l / u.u1) AS a1, i.l - floor(i.l / u.u1) * u.u1 AS r1
    FROM inexact AS i CROSS JOIN units AS u
),
limb2 AS (
    SELECT *, floor(r1 / u2) AS a2, r1 - floor(r1 / u2) * u2 AS r2 FROM limb1
),
limbs AS (
    SELECT * EXCLUDE (r1, r2), floor(r2 / u3) AS a3 FROM limb2
),
block_offsets AS (
    SELECT series, replicate,
           coalesce(sum(bk) OVER before, 0) AS ok, coalesce(sum(b1) OVER before, 0) AS o1,
           coalesce(sum(b2) OVER before, 0) AS o2, coalesce(sum(b3) OVER before, 0) AS o3
    FROM (SELECT series, replicate, sum(k) AS bk, sum(a1) AS b1, sum(a2) AS b2, sum(a3) AS b3
          FROM limbs GROUP BY series, replicate)
    WINDOW before AS (ORDER BY series, replicate ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
limbs_ordered AS (
    SELECT l.*, o.ok, o.o1, o.o2, o.o3
    FROM limbs AS l JOIN block_offsets AS o USING (series, replicate)
    ORDER BY l.series, l.replicate, l.plateau
),
limbs_running AS (
    SELECT *,
           sum(k) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - ok AS k_cum,
           sum(a1) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - o1 AS c1,
           sum(a2) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - o2 AS c2,
           sum(a3) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - o3 AS c3
    FROM limbs_ordered
),
limb_points AS (
    SELECT series, replicate, plateau, threshold, k, k_cum,
           (c1 * u1 + c2 * u2) + c3 * u3 AS l_cum,
           ((c1 - a1) * u1 + (c2 - a2) * u2) + (c3 - a3) * u3 AS l_prev,
           n_total, k_total, loss_scale
    FROM limbs_running
)
FROM rc_running_exact(plateaus, totals)
UNION ALL
FROM rc_point_columns('limb_points');
