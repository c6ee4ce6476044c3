-- The certified rule's candidates per `risk-control` run (docs/risk-control.md): for each
-- (method, seed, alpha) every candidate threshold with its cal coverage, accepted count, the
-- p-value of "risk > alpha" and whether the run's FWER procedure rejected that null, so that
-- procedures can be compared across seeds (and their violation rates in risk_control_results).
CREATE TABLE risk_control_p_values (
    command_id INTEGER NOT NULL,
    procedure VARCHAR NOT NULL,
    method VARCHAR NOT NULL,
    seed BIGINT NOT NULL,
    alpha DOUBLE NOT NULL,
    candidate INTEGER NOT NULL,
    threshold DOUBLE NOT NULL,
    cal_coverage DOUBLE NOT NULL,
    accepted BIGINT NOT NULL,
    p_value DOUBLE NOT NULL,
    rejected BOOLEAN NOT NULL
);
COMMENT ON TABLE risk_control_p_values IS 'risk-control: the certified rule''s candidate thresholds with their p-values and the procedure''s rejections.';
COMMENT ON COLUMN risk_control_p_values.command_id IS 'The risk-control run (command_runs).';
COMMENT ON COLUMN risk_control_p_values.procedure IS 'The FWER procedure: fixed-sequence, bonferroni, holm or split-fixed-sequence.';
COMMENT ON COLUMN risk_control_p_values.method IS 'The method.';
COMMENT ON COLUMN risk_control_p_values.seed IS 'The seed.';
COMMENT ON COLUMN risk_control_p_values.alpha IS 'The risk level.';
COMMENT ON COLUMN risk_control_p_values.candidate IS 'The candidate''s position, most conservative first (0-based).';
COMMENT ON COLUMN risk_control_p_values.threshold IS 'Its confidence threshold (from the whole cal split).';
COMMENT ON COLUMN risk_control_p_values.cal_coverage IS 'Its coverage on the whole cal split.';
COMMENT ON COLUMN risk_control_p_values.accepted IS 'Cal samples accepted there (the whole split).';
COMMENT ON COLUMN risk_control_p_values.p_value IS 'The p-value of risk > alpha (split-fixed-sequence: on the testing half).';
COMMENT ON COLUMN risk_control_p_values.rejected IS 'Whether the procedure rejected risk > alpha there.';
