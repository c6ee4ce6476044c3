-- The oracle's runs (rc_oracle_of): per population, replicate and loss value of a predicted
-- item, how many items `samples` (replicate, participant_id, multiplicity) draws with that
-- loss (c), from `losses` (rc_loss_counts, built once per evaluation).
CREATE OR REPLACE MACRO rc_loss_runs(losses, samples) AS TABLE
SELECT l.population, s.replicate, l.loss AS v, any_value(l.loss_scale) AS loss_scale,
       sum(s.multiplicity * l.n) AS c
FROM query_table(losses) AS l JOIN query_table(samples) AS s USING (participant_id)
GROUP BY l.population, s.replicate, l.loss;
