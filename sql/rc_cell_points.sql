-- RC working points (docs/metrics.md) of a chunk of bootstrap replicates on the few-cluster path
-- (metrics/cells.py): the same rows as rc_running_exact over rc_plateaus, from the cumulative
-- cells built once. `cumulative` names rc_cumulative_cells (one row of lists, packed with k_base
-- and l_base), `weights` a relation (replicate, m DOUBLE[]: each participant's multiplicity in
-- draw order), every block of the replicates exact (rc_totals). A plateau's packed inner product
-- with m holds the replicate's k_cum, l_cum and the same sums at the plateau before (exact:
-- integer sums below 2^53); a plateau no drawn participant predicts at adds no item (k = 0) and
-- is no working point. A skipped plateau adds no loss either, so the point before a point is
-- the series' plateau before it: no window.
-- A replicate's totals n_total and k_total, as rc_totals_of sums them, are inner products of m
-- with each series' item and predicted-item counts (exact integers, as above): lists in
-- series_no order, one row per replicate, without a join or an ordered aggregate per replicate
-- (0 where the replicate draws no one of the series' population: then the series has no
-- points in it either).
-- Order: the points come in (replicate, series, plateau) order, every block (series,
-- replicate) contiguous and in plateau order as the metric macros read them, with no sort:
-- the replicates are sorted (a few rows), each is paired with the one row of lists, and
-- UNNEST gives a row's elements in list order. That the rows then reach the stored table in
-- that order is DuckDB's behaviour (a streaming pipeline with preserve_insertion_order), not
-- a SQL guarantee, so each point checks it against the point before: points out of order
-- raise rather than give wrong points. The check runs on the points only (after the plateaus
-- no drawn participant predicts at are dropped, about a third of the rows for PHQ-8's
-- continuous scores): their order is what the metric macros read.
CREATE OR REPLACE MACRO rc_cell_points(cumulative, weights, k_base, l_base) AS TABLE
WITH weighted AS (
    SELECT w.replicate, w.m,
           list_transform(c.items, lambda v: CAST(list_inner_product(w.m, v) AS BIGINT)) AS n_totals,
           list_transform(c.predicted, lambda v: CAST(list_inner_product(w.m, v) AS BIGINT)) AS k_totals,
           c.loss_scale AS scales
    FROM query_table(weights) AS w CROSS JOIN query_table(cumulative) AS c
    ORDER BY w.replicate
),
cells AS (
    SELECT w.replicate, w.m, w.n_totals, w.k_totals, w.scales,
           unnest(c.series) AS series, unnest(c.series_no) AS series_no, unnest(c.plateau) AS plateau,
           unnest(c.threshold) AS threshold, unnest(c.packed) AS packed
    FROM weighted AS w CROSS JOIN query_table(cumulative) AS c
),
products AS (
    SELECT replicate, series, series_no, plateau, threshold, n_totals, k_totals, scales,
           list_inner_product(m, packed) AS x
    FROM cells
),
fields AS (
    SELECT *, floor(x / (l_base * k_base * l_base)) AS k_cum,
           x - floor(x / (l_base * k_base)) * (l_base * k_base) AS previous
    FROM products
),
points AS (
    SELECT series, replicate, plateau, threshold,
           k_cum - floor(previous / l_base) AS k, k_cum,
           floor(x / (l_base * k_base)) - k_cum * l_base AS l_cum,
           previous - floor(previous / l_base) * l_base AS l_prev,
           n_totals[series_no] AS n_total, k_totals[series_no] AS k_total, scales[series_no] AS loss_scale
    FROM fields
    WHERE k_cum > floor(previous / l_base)
),
checked AS (
    SELECT * EXCLUDE (in_order)
    FROM (SELECT *, (lag(replicate, 1, -1) OVER (), lag(series, 1, -1) OVER (), lag(plateau, 1, -1) OVER ())
                        < (replicate, series, plateau) AS in_order
          FROM points)
    WHERE CASE WHEN in_order THEN true ELSE error('rc_cell_points: rows out of plateau order') END
)
FROM rc_point_columns('checked');
