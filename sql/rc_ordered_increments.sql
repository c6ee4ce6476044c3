-- The increments of rc_running_exact and rc_running_exact_packed: the rows of `plateaus` (a
-- relation (series, replicate, plateau, threshold, k, l), rc_plateaus' columns) whose block
-- (series, replicate) rc_totals (`totals`) says `exact`, with k as a double and the block's
-- n_total, k_total, loss_scale, k_offset and l_offset; other blocks get no rows.
-- Order: (series, replicate, plateau), total (a block has one row per plateau). The callers'
-- running sums have no ORDER BY and take the rows in this order (DuckDB keeps the order of
-- ORDER BY through projections and streaming windows, as the ORDER BY of a table macro's
-- body called in another's FROM); the join is before the sort, so nothing after it reorders
-- the rows.
CREATE OR REPLACE MACRO rc_ordered_increments(plateaus, totals) AS TABLE
SELECT p.series, p.replicate, p.plateau, p.threshold, CAST(p.k AS DOUBLE) AS k, p.l,
       t.n_total, t.k_total, t.loss_scale, t.k_offset, t.l_offset
FROM query_table(plateaus) AS p JOIN query_table(totals) AS t USING (series, replicate)
WHERE t.exact
ORDER BY series, replicate, plateau;
