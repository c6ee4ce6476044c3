-- N (items), K (predicted items) and the loss sum per series and replicate; a sample row
-- weights a participant. Counted per population (they do not depend on the CSF), then fanned
-- out. Loss sums as in rc_cells / rc_plateaus: plain sums (exact in any order) when every loss
-- of `scored` is integer-valued, else fsum in a total order (loss, then participant_id).
-- exact: the block's losses are all integer-valued and the loss sums of all such blocks stay
-- below 2^50, so every running sum of rc_running is an exact integer in any order and the
-- block takes its fast path (one ordered stream over all exact blocks, minus per-block
-- offsets); other blocks take rc_running's exact-limb path.
-- k_offset / l_offset: the sums of every exact (series, replicate) block before this one in
-- (series, replicate) order, which rc_running subtracts from its stream's running sums.
CREATE OR REPLACE MACRO rc_totals(scored, samples) AS TABLE
WITH integral AS (
    SELECT coalesce(bool_and(loss = floor(loss)), true) AS yes FROM query_table(scored)
),
series AS (
    SELECT series, population, any_value(loss_scale) AS loss_scale
    FROM query_table(scored)
    GROUP BY series, population
),
base AS (
    SELECT sc.population, sc.participant_id, sc.loss
    FROM query_table(scored) AS sc
    SEMI JOIN (SELECT population, min(series) AS series FROM series GROUP BY population)
        USING (population, series)
),
people AS (
    SELECT population, participant_id, count(*) AS n_items, count(loss) AS n_pred,
           coalesce(sum(loss), 0.0) AS loss_sum, true AS integral
    FROM base
    WHERE (SELECT yes FROM integral)
    GROUP BY population, participant_id
    UNION ALL
    SELECT population, participant_id, count(*) AS n_items, count(loss) AS n_pred,
           coalesce(fsum(loss ORDER BY loss), 0.0) AS loss_sum,
           coalesce(bool_and(loss = floor(loss)), true) AS integral
    FROM base
    WHERE NOT (SELECT yes FROM integral)
    GROUP BY population, participant_id
),
weighted AS (
    SELECT p.population, s.replicate,
           CAST(sum(s.multiplicity * p.n_items) AS BIGINT) AS n_total,
           CAST(sum(s.multiplicity * p.n_pred) AS BIGINT) AS k_total,
           sum(s.multiplicity * p.loss_sum) AS l_total, true AS integral
    FROM people AS p
    JOIN query_table(samples) AS s USING (participant_id)
    WHERE (SELECT yes FROM integral)
    GROUP BY p.population, s.replicate
    UNION ALL
    SELECT p.population, s.replicate,
           CAST(sum(s.multiplicity * p.n_items) AS BIGINT) AS n_total,
           CAST(sum(s.multiplicity * p.n_pred) AS BIGINT) AS k_total,
           fsum(s.multiplicity * p.loss_sum ORDER BY p.participant_id) AS l_total,
           bool_and(p.integral) AS integral
    FROM people AS p
    JOIN (FROM query_table(samples) WHERE NOT (SELECT yes FROM integral)) AS s USING (participant_id)
    GROUP BY p.population, s.replicate
),
blocks AS (
    SELECT se.series, se.population, w.replicate, w.n_total, w.k_total, w.l_total, se.loss_scale,
           w.integral AND sum(CASE WHEN w.integral THEN w.l_total END) OVER () < 2.0 ^ 50 AS exact
    FROM series AS se
    JOIN weighted AS w USING (population)
)
SELECT series, population, replicate, n_total, k_total, l_total, loss_scale,
       coalesce(sum(CASE WHEN exact THEN k_total ELSE 0 END) OVER before, 0) AS k_offset,
       coalesce(sum(CASE WHEN exact THEN l_total ELSE 0.0 END) OVER before, 0.0) AS l_offset,
       exact
FROM blocks
WINDOW before AS (ORDER BY series, replicate ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);
