-- Class-balanced areas per series and replicate (docs/metrics-extended.md), fd-shifts'
-- definitions without its x1000, over the same working points as aurc_full (plateau-trapezoid):
--   aurc_ba:  the selective risk at a point is the mean over the replicate's K classes of
--             (accepted loss of class k) / (accepted units of class k), a class with nothing
--             accepted counting 0; constant from the first point back to coverage 0;
--   augrc_ba: the generalized risk with each loss weighted by N / (K n_k), i.e. the mean over
--             classes of (accepted loss of class k) / n_k (n_k: units of class k, abstained
--             ones included); 0 at coverage 0.
-- Both curves are means of per-class step functions that change only at the points where
-- their class gains accepted units, so the area is a sum over those (class, point) events
-- (no point x class grid): event j of a class, value F_j from its point p_j until the point
-- before its next event, adds (c(p_j) - c(p_j - 1)) (F_j + F_{j-1}) / 2 + F_j (c_end - c(p_j)),
-- with F_0 = 0, except on the block's first point of aurc_ba, where the risk is constant back
-- to coverage 0 (F_{j-1} = F_j); c_end is the coverage of the point before the next event,
-- or the block's last coverage. The events' terms are summed by fsum in (label, plateau)
-- order, a total order, then divided by K. A block with no accepted unit has areas 0.
-- `class_cells` names rc_class_cells, `samples` (replicate, participant_id, multiplicity),
-- `points` the working points of the same samples (rc_points' columns plateau, coverage,
-- coverage_prev, coverage_last).
CREATE OR REPLACE MACRO rc_balanced_of(class_cells, samples, points) AS TABLE
WITH weighted AS (
    SELECT c.series, s.replicate, c.label, c.plateau,
           sum(s.multiplicity * c.n_items) AS n,
           sum(s.multiplicity * c.n_pred) AS a,
           fsum(s.multiplicity * c.loss_sum ORDER BY c.participant_id) AS l,
           any_value(c.loss_scale) AS loss_scale
    FROM query_table(class_cells) AS c
    JOIN query_table(samples) AS s USING (participant_id)
    GROUP BY c.series, s.replicate, c.label, c.plateau
),
classes AS (
    SELECT series, replicate, label, sum(n) AS n_k,
           count(*) OVER (PARTITION BY series, replicate) AS n_classes
    FROM weighted
    GROUP BY series, replicate, label
),
events AS (
    SELECT series, replicate, label, plateau, loss_scale,
           sum(a) OVER cls AS a_cum, sum(l) OVER cls AS l_cum
    FROM weighted
    WHERE a > 0
    WINDOW cls AS (PARTITION BY series, replicate, label ORDER BY plateau
                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
valued AS (
    SELECT e.series, e.replicate, e.label, e.plateau,
           e.l_cum / e.loss_scale / e.a_cum AS f_sel,
           e.l_cum / e.loss_scale / c.n_k AS f_gen,
           p.coverage, coalesce(p.coverage_prev, 0.0) AS c_prev, p.coverage_prev IS NULL AS first_point,
           p.coverage_last
    FROM events AS e
    JOIN classes AS c USING (series, replicate, label)
    JOIN query_table(points) AS p USING (series, replicate, plateau)
),
held AS (
    SELECT *,
           lag(f_sel, 1, 0.0) OVER cls AS f_sel_before,
           lag(f_gen, 1, 0.0) OVER cls AS f_gen_before,
           coalesce(lead(c_prev) OVER cls, coverage_last) AS c_end
    FROM valued
    WINDOW cls AS (PARTITION BY series, replicate, label ORDER BY plateau)
),
areas AS (
    SELECT series, replicate,
           fsum((coverage - c_prev) * (f_sel + CASE WHEN first_point THEN f_sel ELSE f_sel_before END) / 2
                + f_sel * (c_end - coverage) ORDER BY label, plateau) AS sel,
           fsum((coverage - c_prev) * (f_gen + f_gen_before) / 2 + f_gen * (c_end - coverage)
                ORDER BY label, plateau) AS gen
    FROM held
    GROUP BY series, replicate
)
SELECT k.series, k.replicate,
       coalesce(a.sel / k.n_classes, 0.0) AS aurc_ba,
       coalesce(a.gen / k.n_classes, 0.0) AS augrc_ba
FROM (SELECT DISTINCT series, replicate, n_classes FROM classes) AS k
LEFT JOIN areas AS a USING (series, replicate);
