-- Optimal (oracle) AURC and AUGRC per population and replicate (docs/metrics.md): predicted items
-- ranked by loss ascending, one working point per item. Computed in closed form over runs of
-- equal loss: a run of c items of loss v after a items with loss sum La adds
--   sum_k L_k   = c*La + v*c*(c+1)/2
--   sum_k L_k/k = c*v + (La - a*v) * (H(a+c) - H(a))
-- with harmonic numbers H from `harmonic` (rc_harmonic: exact HUGEINT prefix sums), so a
-- replicate costs one row per distinct loss, not one per item. N comes from `totals`
-- (rc_totals).
-- Also fd-shifts' continuous-coverage optimum (docs/metrics.md), defined when every loss of the
-- population is 0 or 1 (`losses_binary`): with error mass E = L / N and Cmax = K / N, the best
-- curve accepts the K - L correct items first, so its area is
--   E + (Cmax - E) * ln((Cmax - E + eps) / Cmax)
-- which is docs/metrics.md's e + (1 - e) * ln(1 - e + eps) when nothing abstains (Cmax = 1, same bits).
-- `losses` names rc_loss_counts(scored) (built once per evaluation); rc_oracle composes it.
-- The runs are rc_loss_runs' (the loss counts weighted by `samples`); the rest is
-- rc_oracle_runs', which the sort-once path of `evaluate` feeds with the same runs taken
-- without a join (metrics/plateau_stream.py).
CREATE OR REPLACE MACRO rc_oracle_of(losses, samples, totals, harmonic, estimator) AS TABLE
WITH runs AS (
    FROM rc_loss_runs(losses, samples)
)
FROM rc_oracle_runs(losses, 'runs', totals, harmonic, estimator);
