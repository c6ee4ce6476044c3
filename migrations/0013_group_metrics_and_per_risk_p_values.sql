-- Per-group metrics of an evaluation (`evaluate --group COLUMN`, docs/metrics-extended.md), long
-- format like evaluation_metrics: per CSF and group value its n, Cmax, AURC, AUGRC and
-- Coverage@Risk(alpha) with bootstrap CIs, its coverage at the CSF's Coverage@Risk(alpha)
-- threshold on the whole population (group_coverage), and per CSF and alpha the coverage gap
-- between the groups (group_value NULL).
CREATE TABLE evaluation_group_metrics (
    evaluation_id INTEGER NOT NULL,
    group_column VARCHAR NOT NULL,
    csf VARCHAR NOT NULL,
    group_value VARCHAR,
    metric VARCHAR NOT NULL,
    metric_base VARCHAR NOT NULL,
    at_value DOUBLE,
    value DOUBLE,
    ci_low DOUBLE,
    ci_high DOUBLE
);
COMMENT ON TABLE evaluation_group_metrics IS 'evaluate --group: each group''s metrics with CIs and the coverage gaps between the groups.';
COMMENT ON COLUMN evaluation_group_metrics.evaluation_id IS 'The evaluation (evaluations).';
COMMENT ON COLUMN evaluation_group_metrics.group_column IS 'The per-sample column grouped by: label, prediction or an attribute.';
COMMENT ON COLUMN evaluation_group_metrics.csf IS 'The CSF.';
COMMENT ON COLUMN evaluation_group_metrics.group_value IS 'The group (a value of the column); NULL for a coverage_gap row.';
COMMENT ON COLUMN evaluation_group_metrics.metric IS 'n, cmax, aurc_full, augrc_full, coverage_at_risk_<a>, group_coverage_<a> or coverage_gap_<a>.';
COMMENT ON COLUMN evaluation_group_metrics.metric_base IS 'The metric without its alpha.';
COMMENT ON COLUMN evaluation_group_metrics.at_value IS 'The alpha of a coverage metric, as requested.';
COMMENT ON COLUMN evaluation_group_metrics.value IS 'The value.';
COMMENT ON COLUMN evaluation_group_metrics.ci_low IS 'Lower end of its 95% bootstrap CI (NULL without one).';
COMMENT ON COLUMN evaluation_group_metrics.ci_high IS 'Upper end of its 95% bootstrap CI.';

-- risk-control with several risks (docs/risk-control.md): beside each candidate's combined
-- p-value (the largest of its risks', the one the procedure tests; risk = 'combined'), one
-- row per risk with that risk's own p-value, level and the n it was tested with, so that
-- procedures and risks can be compared across seeds. Rows stored before this have risk
-- 'combined'.
ALTER TABLE risk_control_p_values ADD COLUMN risk VARCHAR DEFAULT 'combined';
ALTER TABLE risk_control_p_values ADD COLUMN level DOUBLE;
ALTER TABLE risk_control_p_values ADD COLUMN n_tested BIGINT;
COMMENT ON COLUMN risk_control_p_values.risk IS 'combined (the p-value tested: the largest of the risks''), or one risk: selective, generalized or coverage_loss.';
COMMENT ON COLUMN risk_control_p_values.level IS 'The risk''s level (its --risk level; alpha for the selective risk of --alpha); NULL on a combined row.';
COMMENT ON COLUMN risk_control_p_values.n_tested IS 'The n the risk was tested with (the accepted count for a selective risk, else all cal samples); NULL on a combined row.';

-- risk-control --group COLUMN (docs/risk-control.md): each group's test coverage at every
-- rule's threshold (the gap between the groups: max - min per command, method, seed, rule, alpha).
CREATE TABLE risk_control_group_coverage (
    command_id INTEGER NOT NULL,
    method VARCHAR NOT NULL,
    seed BIGINT NOT NULL,
    rule VARCHAR NOT NULL,
    alpha DOUBLE NOT NULL,
    group_column VARCHAR NOT NULL,
    group_value VARCHAR NOT NULL,
    coverage DOUBLE NOT NULL
);
COMMENT ON TABLE risk_control_group_coverage IS 'risk-control --group: each group''s test coverage at each rule''s threshold.';
COMMENT ON COLUMN risk_control_group_coverage.command_id IS 'The risk-control run (command_runs).';
COMMENT ON COLUMN risk_control_group_coverage.method IS 'The method.';
COMMENT ON COLUMN risk_control_group_coverage.seed IS 'The seed.';
COMMENT ON COLUMN risk_control_group_coverage.rule IS 'certified, uncertified or crc.';
COMMENT ON COLUMN risk_control_group_coverage.alpha IS 'The risk level.';
COMMENT ON COLUMN risk_control_group_coverage.group_column IS 'The per-sample column grouped by: label, prediction or an attribute.';
COMMENT ON COLUMN risk_control_group_coverage.group_value IS 'The group.';
COMMENT ON COLUMN risk_control_group_coverage.coverage IS 'The group''s accepted share of its test samples at the rule''s threshold (abstentions in the denominator).';
