-- Per population, participant and loss value of a predicted item: how many items (n), with
-- the population's loss scale; any one series of a population holds its items (the oracle
-- ignores confidence). Does not depend on the replicates (`evaluate` builds it once);
-- rc_oracle_of weights it by a sample table.
CREATE OR REPLACE MACRO rc_loss_counts(scored) AS TABLE
WITH first_series AS (
    SELECT population, min(series) AS series FROM query_table(scored) GROUP BY population
),
base AS (
    SELECT sc.* FROM query_table(scored) AS sc SEMI JOIN first_series USING (population, series)
)
SELECT population, participant_id, loss, count(*) AS n, any_value(loss_scale) AS loss_scale
FROM base
WHERE loss IS NOT NULL
GROUP BY population, participant_id, loss;
