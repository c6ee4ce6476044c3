-- N (items), K (predicted items) and the loss sum per series and replicate; a sample row
-- weights a participant. Counted per population (they do not depend on the CSF), then fanned
-- out. k_offset / l_offset: the sums of every (series, replicate) block before this one in
-- (series, replicate) order, which rc_points subtracts from its running sums.
CREATE OR REPLACE MACRO rc_totals(scored, samples) AS TABLE
WITH series AS (
    SELECT series, population, any_value(loss_scale) AS loss_scale
    FROM query_table(scored)
    GROUP BY series, population
),
people AS (
    SELECT sc.population, sc.participant_id, count(*) AS n_items, count(sc.loss) AS n_pred,
           coalesce(sum(sc.loss), 0.0) AS loss_sum
    FROM query_table(scored) AS sc
    SEMI JOIN (SELECT population, min(series) AS series FROM series GROUP BY population)
        USING (population, series)
    GROUP BY sc.population, sc.participant_id
),
weighted AS (
    SELECT p.population, s.replicate,
           CAST(sum(s.multiplicity * p.n_items) AS BIGINT) AS n_total,
           CAST(sum(s.multiplicity * p.n_pred) AS BIGINT) AS k_total,
           sum(s.multiplicity * p.loss_sum) AS l_total
    FROM people AS p
    JOIN query_table(samples) AS s USING (participant_id)
    GROUP BY p.population, s.replicate
)
SELECT se.series, se.population, w.replicate, w.n_total, w.k_total, w.l_total, se.loss_scale,
       coalesce(sum(w.k_total) OVER before, 0) AS k_offset,
       coalesce(sum(w.l_total) OVER before, 0.0) AS l_offset
FROM series AS se
JOIN weighted AS w USING (population)
WINDOW before AS (ORDER BY se.series, w.replicate ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);
