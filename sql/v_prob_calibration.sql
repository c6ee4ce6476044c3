-- ECE (10 bins), NLL and Brier of `prob` per per-sample experiment (docs/metrics.md), by the
-- prob_calibration macro over v_prob_samples; experiments without prob or with losses other
-- than 0/1 have no row.
CREATE OR REPLACE VIEW v_prob_calibration AS
SELECT series AS experiment_id, n, ece, nll, brier, n_bins
FROM prob_calibration('v_prob_samples', 10);
