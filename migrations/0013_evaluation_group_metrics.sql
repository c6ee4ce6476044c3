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
