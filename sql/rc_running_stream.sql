-- RC working points (docs/metrics.md, working points) of one series and replicate from its
-- weighted cells already in plateau order: the "sort once" path of `evaluate`
-- (metrics/plateau_stream.py), which sorts each series' cells once per evaluation and streams
-- every replicate through them, so no replicate is sorted, partitioned or joined by participant.
-- `cells` names a relation (series, replicate, plateau, threshold, k, l) of the cells a
-- replicate draws (k > 0: the multiplicity times the cell's predicted items, l times its raw
-- loss sum), in plateau order (plateau 1 = most confident), one block; n_total, k_total and
-- loss_scale are the block's rc_totals. The same points, bit for bit, as rc_running_exact over
-- rc_plateaus: every sum is of integer-valued doubles below 2^53 (`evaluate` takes this path
-- only when rc_totals says `exact`), so it is exact in any grouping, and a point is its
-- plateau's last cell (rc_stream_points). rc_running_stream_packed gives the same points from
-- one running sum where the two fit in one double.
-- Order: the running sums and lead have no ORDER BY, so they follow the rows as scanned:
-- DuckDB scans a table in insertion order on one thread with preserve_insertion_order (the
-- setting plateau_stream pins). That is documented behaviour, not a SQL guarantee, so each
-- row checks it against the next one's plateau (rc_stream_points): rows out of plateau order
-- raise an error rather than give wrong points.
CREATE OR REPLACE MACRO rc_running_stream(cells, n_total, k_total, loss_scale) AS TABLE
WITH running AS (
    SELECT series, replicate, plateau, threshold,
           sum(k) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS k_cum,
           sum(l) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS l_cum,
           lead(plateau) OVER () AS next_plateau
    FROM query_table(cells)
)
FROM rc_stream_points('running', n_total, k_total, loss_scale);
