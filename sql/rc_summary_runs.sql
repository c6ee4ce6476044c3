-- rc_summary_of's scalars (which it says what) with the oracle's runs given: `runs` names a
-- relation as rc_loss_runs gives (rc_oracle_runs reads it), the other arguments are
-- rc_summary_of's.
CREATE OR REPLACE MACRO rc_summary_runs(losses, runs, points, totals, harmonic, area_c, estimator)
AS TABLE
WITH placed AS (
    FROM rc_placed_runs(runs)
)
FROM rc_summary_placed(losses, 'placed', points, totals, harmonic, area_c, estimator);
