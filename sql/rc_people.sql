-- Per population and participant: items, predicted items and raw loss sum, counted once per
-- population (any one series holds its items: the first), with whether the participant's losses
-- are integer-valued and `all_integral`, whether every loss of `scored` is. Loss sums as in
-- rc_cells: plain sums (exact in any order) when every loss is integer-valued, else fsum in
-- loss order. Does not depend on the replicates (`evaluate` builds it once); rc_totals_of
-- weights it by a sample table.
CREATE OR REPLACE MACRO rc_people(scored) AS TABLE
WITH integral AS (
    SELECT coalesce(bool_and(loss = floor(loss)), true) AS yes FROM query_table(scored)
),
base AS (
    SELECT sc.population, sc.participant_id, sc.loss
    FROM query_table(scored) AS sc
    SEMI JOIN (SELECT population, min(series) AS series FROM query_table(scored) GROUP BY population)
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
)
SELECT *, (SELECT yes FROM integral) AS all_integral FROM people;
