-- The series of `confidences` (warehouse_confidences): every CSF an experiment supports (no
-- predicted unit with a missing or null-error signal) under every loss the experiment has,
-- with integer keys for the rc_* macros, which only group, join and sort by them (integer
-- keys cost a fraction of a struct's in their windows and sorts). `series` counts from
-- `first_series` in (experiment_id, csf, loss) order, `population` numbers the (experiment_id,
-- loss) pairs of the experiments listed in `experiments` in that order, the same whichever
-- CSFs `confidences` holds; so the keys sort as the {experiment_id, csf, loss} structs would,
-- and the macros' rows come in the same order.
CREATE OR REPLACE MACRO warehouse_series(confidences, experiments, first_series) AS TABLE
WITH supported AS (
    SELECT experiment_id, csf
    FROM query_table(confidences)
    GROUP BY experiment_id, csf
    HAVING count(problem) = 0
),
populations AS (
    SELECT experiment_id, loss,
           CAST(row_number() OVER (ORDER BY experiment_id, loss) AS INTEGER) AS population
    FROM v_experiment_losses
    WHERE experiment_id IN (SELECT experiment_id FROM query_table(experiments))
)
SELECT CAST(first_series - 1 + row_number() OVER (ORDER BY s.experiment_id, s.csf, p.loss) AS INTEGER)
           AS series,
       p.population, s.experiment_id, s.csf, p.loss
FROM supported AS s
JOIN populations AS p USING (experiment_id);
