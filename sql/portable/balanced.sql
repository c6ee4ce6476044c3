-- portable: balanced
-- reads: class_cells, samples, points
-- columns: series, replicate, aurc_ba, augrc_ba
-- Class-balanced areas per series and replicate (docs/metrics-extended.md), over the same
-- working points as aurc_full: aurc_ba's selective risk at a point is the mean over the
-- replicate's classes of (accepted loss of the class) / (its accepted units), constant from
-- the first point back to coverage 0; augrc_ba's generalized risk the mean over classes of
-- (accepted loss of the class) / n_k (its units, abstentions included). Each class's curve
-- changes only where the class gains accepted units, so the area is a sum over (class, point)
-- events: event j with value F_j adds (c(p_j) - c(p_j - 1)) (F_j + F_{j-1}) / 2 +
-- F_j (c_end - c(p_j)), F_0 = 0 (aurc_ba's first point: F_{j-1} = F_j), c_end the coverage of
-- the point before the class's next event or the block's last coverage. The terms are summed
-- by a running window ORDER BY label, plateau (a total order), then divided by the number of
-- classes. A block with no accepted unit has areas 0. Loss sums are exact DECIMALs.
WITH weighted AS (
    SELECT c.series, s.replicate, c.label, c.plateau,
           sum(s.multiplicity * c.n_items) AS n,
           sum(s.multiplicity * c.n_pred) AS a,
           sum(CAST(s.multiplicity AS DECIMAL(10, 0)) * c.loss_sum) AS l,
           max(c.loss_scale) AS loss_scale
    FROM class_cells AS c
    JOIN samples AS s ON s.cluster = c.cluster
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
           sum(a) OVER (PARTITION BY series, replicate, label ORDER BY plateau
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS a_cum,
           sum(l) OVER (PARTITION BY series, replicate, label ORDER BY plateau
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS l_cum
    FROM weighted
    WHERE a > 0
),
valued AS (
    SELECT e.series, e.replicate, e.label, e.plateau,
           CAST(e.l_cum AS DOUBLE) / e.loss_scale / CAST(e.a_cum AS DOUBLE) AS f_sel,
           CAST(e.l_cum AS DOUBLE) / e.loss_scale / CAST(c.n_k AS DOUBLE) AS f_gen,
           p.coverage, coalesce(p.coverage_prev, 0.0) AS c_prev,
           CASE WHEN p.coverage_prev IS NULL THEN 1 ELSE 0 END AS first_point,
           p.coverage_last
    FROM events AS e
    JOIN classes AS c ON c.series = e.series AND c.replicate = e.replicate AND c.label = e.label
    JOIN points AS p ON p.series = e.series AND p.replicate = e.replicate AND p.plateau = e.plateau
),
held AS (
    SELECT series, replicate, label, plateau, f_sel, f_gen, coverage, c_prev, first_point,
           coalesce(lag(f_sel) OVER (PARTITION BY series, replicate, label ORDER BY plateau), 0.0)
               AS f_sel_before,
           coalesce(lag(f_gen) OVER (PARTITION BY series, replicate, label ORDER BY plateau), 0.0)
               AS f_gen_before,
           coalesce(lead(c_prev) OVER (PARTITION BY series, replicate, label ORDER BY plateau),
                    coverage_last) AS c_end
    FROM valued
),
terms AS (
    SELECT series, replicate, label, plateau,
           (coverage - c_prev) * (f_sel + CASE WHEN first_point = 1 THEN f_sel ELSE f_sel_before END) / 2
               + f_sel * (c_end - coverage) AS sel,
           (coverage - c_prev) * (f_gen + f_gen_before) / 2 + f_gen * (c_end - coverage) AS gen
    FROM held
),
running AS (
    SELECT series, replicate,
           sum(sel) OVER (PARTITION BY series, replicate ORDER BY label, plateau
                          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS sel,
           sum(gen) OVER (PARTITION BY series, replicate ORDER BY label, plateau
                          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS gen,
           row_number() OVER (PARTITION BY series, replicate ORDER BY label DESC, plateau DESC) AS from_last
    FROM terms
),
blocks AS (
    SELECT DISTINCT series, replicate, n_classes FROM classes
)
SELECT k.series, k.replicate,
       coalesce(a.sel / k.n_classes, 0.0) AS aurc_ba,
       coalesce(a.gen / k.n_classes, 0.0) AS augrc_ba
FROM blocks AS k
LEFT JOIN running AS a ON a.series = k.series AND a.replicate = k.replicate AND a.from_last = 1
