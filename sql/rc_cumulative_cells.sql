-- The few-cluster path of `evaluate` (metrics/cells.py), built once per evaluation: per series and
-- plateau of a predicted cell, every participant's cumulative predicted items and raw loss up to
-- that plateau and up to the plateau before it, as one list over the participants in draw order.
-- A bootstrap replicate's working point at that plateau is then one inner product of this list
-- with the replicate's multiplicities (rc_cell_points): no sort, no window, no join by participant.
-- `cells` names rc_cells(scored) (every loss integer-valued: the caller checks), `draw_order`
-- a relation (participant_id, position) of every participant of the draws (position 0, 1, ...),
-- `series_info` rc_series(scored). The four integers of a participant are packed into one
-- double, most significant first: k_cum, l_cum, k_prev, l_prev, each field in base k_base
-- (counts) or l_base (losses), powers of two with every field's weighted sum below its base
-- and the whole below 2^53 (metrics/cells.py chooses them from the largest sums a replicate can
-- reach). A sum of multiplicity x packed value is then a sum of integers below 2^53, exact in
-- any order, whose fields are the weighted sums of the fields, with no carry between them.
-- series_no: the series' position among rc_series' series (1, 2, ...), which rc_cell_points
-- uses to read the replicate's totals. `people` names rc_people(scored): a replicate's totals
-- are inner products too, of its multiplicities with each series' per-participant item and
-- predicted-item counts (its population's, as rc_totals_of sums them).
-- Out: one row of lists, one element per (series, plateau) in (series, plateau) order: series,
-- series_no, plateau, threshold and packed (a DOUBLE[] per element), and their count n; and one
-- element per series in series_no order: items and predicted (a DOUBLE[] over the participants
-- in draw order each) and loss_scale. One row, so that rc_cell_points unnests them per
-- replicate in that order.
CREATE OR REPLACE MACRO rc_cumulative_cells(cells, draw_order, series_info, people, k_base, l_base) AS TABLE
WITH numbered AS (
    SELECT series, population, loss_scale, row_number() OVER (ORDER BY series) AS series_no
    FROM query_table(series_info)
),
counts AS (
    SELECT n.series_no, any_value(n.loss_scale) AS loss_scale,
           list(CAST(coalesce(p.n_items, 0) AS DOUBLE) ORDER BY d.position) AS items,
           list(CAST(coalesce(p.n_pred, 0) AS DOUBLE) ORDER BY d.position) AS predicted
    FROM numbered AS n
    CROSS JOIN query_table(draw_order) AS d
    LEFT JOIN query_table(people) AS p ON p.population = n.population AND p.participant_id = d.participant_id
    GROUP BY n.series_no
),
plateaus AS (
    SELECT series, plateau, any_value(confidence) AS threshold
    FROM query_table(cells) WHERE n_pred > 0 GROUP BY series, plateau
),
grid AS (
    SELECT p.series, p.plateau, p.threshold, d.participant_id, d.position,
           coalesce(c.n_pred, 0) AS n, coalesce(c.loss_sum, 0.0) AS l
    FROM plateaus AS p
    CROSS JOIN query_table(draw_order) AS d
    LEFT JOIN (FROM query_table(cells) WHERE n_pred > 0) AS c
        ON c.series = p.series AND c.plateau = p.plateau AND c.participant_id = d.participant_id
),
running AS (
    SELECT *, sum(n) OVER w AS k_cum, sum(l) OVER w AS l_cum
    FROM grid
    WINDOW w AS (PARTITION BY series, participant_id ORDER BY plateau
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
packed AS (
    SELECT r.series, n.series_no, r.plateau, any_value(r.threshold) AS threshold,
           list((((k_cum * l_base + l_cum) * k_base + (k_cum - n)) * l_base + (l_cum - l))
                ORDER BY r.position) AS packed
    FROM running AS r JOIN numbered AS n USING (series)
    GROUP BY r.series, n.series_no, r.plateau
)
SELECT list(series ORDER BY series, plateau) AS series,
       list(series_no ORDER BY series, plateau) AS series_no,
       list(plateau ORDER BY series, plateau) AS plateau,
       list(threshold ORDER BY series, plateau) AS threshold,
       list(packed ORDER BY series, plateau) AS packed,
       count(*) AS n,
       (SELECT list(items ORDER BY series_no) FROM counts) AS items,
       (SELECT list(predicted ORDER BY series_no) FROM counts) AS predicted,
       (SELECT list(loss_scale ORDER BY series_no) FROM counts) AS loss_scale
FROM packed;
