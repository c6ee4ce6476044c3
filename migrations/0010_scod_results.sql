-- SCOD results (docs/metrics-extended.md): per `riskcov scod` call, CSF and cost c_OOD, each
-- metric in long format (scod_aurc, scod_augrc; coverage_at_risk with its alpha) with its
-- bootstrap CI, so costs, CSFs and seeds can be compared in SQL.
CREATE SEQUENCE scod_id_seq START 1;
CREATE TABLE scod_results (
    scod_id INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL,
    run_id VARCHAR NOT NULL,
    method VARCHAR,
    seed BIGINT,
    split VARCHAR,
    id_experiment_id INTEGER NOT NULL,
    ood_experiment_id INTEGER NOT NULL,
    csf VARCHAR NOT NULL,
    c_ood DOUBLE NOT NULL,
    metric VARCHAR NOT NULL,
    alpha DOUBLE,
    value DOUBLE,
    ci_low DOUBLE,
    ci_high DOUBLE,
    n_resamples INTEGER NOT NULL,
    bootstrap_seed BIGINT NOT NULL
);
COMMENT ON TABLE scod_results IS 'riskcov scod: SCOD-AURC, SCOD-AUGRC and Coverage@Risk per CSF and c_OOD, with bootstrap CIs.';
COMMENT ON COLUMN scod_results.scod_id IS 'One riskcov scod call.';
COMMENT ON COLUMN scod_results.created_at IS 'When it ran (UTC).';
COMMENT ON COLUMN scod_results.run_id IS 'The run.';
COMMENT ON COLUMN scod_results.method IS 'The method of the ID and OOD experiments.';
COMMENT ON COLUMN scod_results.seed IS 'Their seed.';
COMMENT ON COLUMN scod_results.split IS 'Their split.';
COMMENT ON COLUMN scod_results.id_experiment_id IS 'The ID experiment.';
COMMENT ON COLUMN scod_results.ood_experiment_id IS 'The OOD experiment.';
COMMENT ON COLUMN scod_results.csf IS 'The confidence score ranking both.';
COMMENT ON COLUMN scod_results.c_ood IS 'The cost of an accepted OOD sample (a wrong ID sample costs 1 - c_ood).';
COMMENT ON COLUMN scod_results.metric IS 'scod_aurc, scod_augrc or coverage_at_risk.';
COMMENT ON COLUMN scod_results.alpha IS 'The risk budget of coverage_at_risk; NULL for the areas.';
COMMENT ON COLUMN scod_results.value IS 'The point estimate.';
COMMENT ON COLUMN scod_results.ci_low IS 'Lower end of the 95% bootstrap CI (NULL without resamples).';
COMMENT ON COLUMN scod_results.ci_high IS 'Upper end of the 95% bootstrap CI (NULL without resamples).';
COMMENT ON COLUMN scod_results.n_resamples IS 'Bootstrap resamples (clusters of both domains).';
COMMENT ON COLUMN scod_results.bootstrap_seed IS 'The bootstrap seed.';
