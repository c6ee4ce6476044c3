-- rc_oracle_of's optimal areas (which it says how) from the runs of each population and
-- replicate: `runs` names a relation (population, replicate, v, loss_scale, c) as
-- rc_loss_runs gives (or the sort-once path's same sums, metrics/plateau_stream.py), `losses`
-- rc_loss_counts (for which populations' losses are all 0 or 1), `totals` rc_totals.
CREATE OR REPLACE MACRO rc_oracle_runs(losses, runs, totals, harmonic, estimator) AS TABLE
WITH placed AS (
    FROM rc_placed_runs(runs)
)
FROM rc_oracle_placed(losses, 'placed', totals, harmonic, estimator);
