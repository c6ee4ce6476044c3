-- Optimal (oracle) AURC and AUGRC per population and replicate (docs/metrics.md) and fd-shifts'
-- continuous-coverage optimum (docs/metrics.md): rc_oracle_of (which says how) over rc_loss_counts of
-- `scored`. `evaluate` builds the loss counts once per evaluation and calls rc_oracle_of per
-- chunk of replicates.
CREATE OR REPLACE MACRO rc_oracle(scored, samples, totals, harmonic, estimator) AS TABLE
WITH loss_counts AS (
    FROM rc_loss_counts(scored)
)
FROM rc_oracle_of('loss_counts', samples, totals, harmonic, estimator);
