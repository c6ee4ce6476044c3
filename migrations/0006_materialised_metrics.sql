-- Point metrics and RC working points as tables of the warehouse, maintained per experiment
-- at ingest (riskcov.materialise, in the ingest's transaction; deleted with the run on
-- --replace) and recomputed whole when the installed SQL changes (`csf add` / `remove`, a new
-- riskcov). v_metrics / v_rc_points read them, so README query 1 is a scan. The rows are
-- computed by the macros of sql/ (warehouse_scored, rc_totals, rc_points, rc_summary via
-- warehouse_metrics), the same SQL as `evaluate --bootstrap-resamples 0`.

CREATE TABLE metrics (
    run_id VARCHAR NOT NULL,
    run_timestamp VARCHAR,
    experiment_id INTEGER NOT NULL,
    mode VARCHAR,
    method VARCHAR,
    seed BIGINT,
    split VARCHAR,
    domain VARCHAR,
    csf VARCHAR NOT NULL,
    loss VARCHAR NOT NULL,
    cmax DOUBLE,
    aurc_full DOUBLE,
    augrc_full DOUBLE,
    aurc_optimal DOUBLE,
    augrc_optimal DOUBLE,
    eaurc DOUBLE,
    eaugrc DOUBLE,
    area_coverage DOUBLE,
    aurc_at_c DOUBLE,
    augrc_at_c DOUBLE,
    n_points BIGINT,
    aurc_optimal_population DOUBLE,
    eaurc_population DOUBLE,
    prob_ece DOUBLE,
    prob_nll DOUBLE,
    prob_brier DOUBLE,
    PRIMARY KEY (experiment_id, csf, loss)
);

CREATE TABLE rc_points (
    experiment_id INTEGER NOT NULL,
    csf VARCHAR NOT NULL,
    loss VARCHAR NOT NULL,
    replicate INTEGER NOT NULL,
    plateau BIGINT NOT NULL,
    threshold DOUBLE,
    k_cum BIGINT,
    l_cum DOUBLE,
    n_total BIGINT,
    k_total BIGINT,
    coverage DOUBLE,
    selective_risk DOUBLE,
    generalized_risk DOUBLE,
    coverage_prev DOUBLE,
    selective_risk_prev DOUBLE,
    generalized_risk_prev DOUBLE,
    coverage_last DOUBLE,
    PRIMARY KEY (experiment_id, csf, loss, replicate, plateau)
);

-- evaluate's stored metrics name their run, experiment, mode and loss, and a metric's
-- parameter (the coverage of MAE@coverage, the alpha of coverage_at_risk, the C of AURC@C) is
-- the number `at_value` beside a parameter-free `metric_base`; `metric` keeps the full key.
ALTER TABLE evaluation_metrics ADD COLUMN run_id VARCHAR;
ALTER TABLE evaluation_metrics ADD COLUMN experiment_id INTEGER;
ALTER TABLE evaluation_metrics ADD COLUMN mode VARCHAR;
ALTER TABLE evaluation_metrics ADD COLUMN loss VARCHAR;
ALTER TABLE evaluation_metrics ADD COLUMN metric_base VARCHAR;
ALTER TABLE evaluation_metrics ADD COLUMN at_value DOUBLE;

-- the views that computed v_metrics over the whole warehouse are gone; reinstall sql/ (and so
-- fill the tables above for every experiment already ingested) on this open
DROP VIEW IF EXISTS v_metrics;
DROP VIEW IF EXISTS v_rc_points;
DROP VIEW IF EXISTS v_harmonic;
DROP VIEW IF EXISTS v_rc_totals;
-- helpers that only feed the macros move to a schema of their own (out of SHOW TABLES and BI
-- tools' listings): internal.v_scored, internal.v_unit_samples
DROP VIEW IF EXISTS v_scored;
DROP VIEW IF EXISTS v_unit_samples;
CREATE SCHEMA internal;
DELETE FROM warehouse_meta WHERE key = 'sql_objects_sha256';

-- A description of every table and column, for SQL users and BI tools (duckdb_tables(),
-- duckdb_columns()).
COMMENT ON TABLE runs IS 'One row per ingested run file.';
COMMENT ON COLUMN runs.run_id IS 'The run''s id (PHQ-8 JSON: from the file; per-sample: --run-id or the file stem).';
COMMENT ON COLUMN runs.source_path IS 'The path the file was ingested from.';
COMMENT ON COLUMN runs.sha256 IS 'sha256 of the file''s bytes; the same content again is a no-op.';
COMMENT ON COLUMN runs.ingested_at IS 'When it was ingested (UTC).';
COMMENT ON COLUMN runs.git_commit IS 'The git commit the run file records, if any.';
COMMENT ON COLUMN runs.timestamp IS 'The run''s own timestamp as the file gives it (text), if any.';
COMMENT ON COLUMN runs.run_metadata IS 'The file''s run metadata (JSON).';
COMMENT ON COLUMN runs.input_format IS 'phq8_json or per_sample.';
COMMENT ON COLUMN runs.riskcov_version IS 'The riskcov that ingested it.';
COMMENT ON TABLE experiments IS 'One row per experiment of a run: a PHQ-8 mode, or a per-sample (method, seed, split, domain).';
COMMENT ON COLUMN experiments.experiment_id IS 'Warehouse-wide experiment id.';
COMMENT ON COLUMN experiments.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN experiments.experiment_index IS 'Position of the experiment in its file.';
COMMENT ON COLUMN experiments.mode IS 'PHQ-8 experiment mode (zero_shot, few_shot, ...); NULL for per-sample runs.';
COMMENT ON COLUMN experiments.provenance IS 'The experiment''s provenance block (JSON).';
COMMENT ON COLUMN experiments.item_names IS 'The items of each participant, in order (PHQ-8: 8 names).';
COMMENT ON COLUMN experiments.score_min IS 'Lowest item score (PHQ-8: 0).';
COMMENT ON COLUMN experiments.score_max IS 'Highest item score (PHQ-8: 3); abs_norm divides by score_max - score_min.';
COMMENT ON COLUMN experiments.loss_kind IS 'abs_error (PHQ-8: losses abs and abs_norm) or given (per-sample loss as in the file).';
COMMENT ON COLUMN experiments.method IS 'Per-sample: the method column.';
COMMENT ON COLUMN experiments.seed IS 'Per-sample: the seed column.';
COMMENT ON COLUMN experiments.split IS 'Per-sample: the split (cal, test, ...).';
COMMENT ON COLUMN experiments.domain IS 'Per-sample: id or ood.';
COMMENT ON TABLE participants IS 'One row per participant of a PHQ-8 experiment.';
COMMENT ON COLUMN participants.experiment_id IS 'The experiment.';
COMMENT ON COLUMN participants.participant_id IS 'The participant''s id.';
COMMENT ON COLUMN participants.success IS 'Whether the run produced predictions for the participant (failed ones are not scored).';
COMMENT ON COLUMN participants.error IS 'The run''s error text for a failed participant.';
COMMENT ON COLUMN participants.has_signals IS 'Whether the participant''s items carry confidence signals.';
COMMENT ON TABLE items IS 'One row per item of a successful PHQ-8 participant.';
COMMENT ON COLUMN items.experiment_id IS 'The experiment.';
COMMENT ON COLUMN items.participant_id IS 'The participant.';
COMMENT ON COLUMN items.item_index IS '0-based item position.';
COMMENT ON COLUMN items.item_name IS 'The item''s name.';
COMMENT ON COLUMN items.pred IS 'Predicted score; NULL = abstained.';
COMMENT ON COLUMN items.gt IS 'Ground-truth score.';
COMMENT ON TABLE item_signals IS 'The confidence signals of an item, a typed column per known signal.';
COMMENT ON COLUMN item_signals.experiment_id IS 'The experiment.';
COMMENT ON COLUMN item_signals.participant_id IS 'The participant.';
COMMENT ON COLUMN item_signals.item_index IS '0-based item position.';
COMMENT ON COLUMN item_signals.signal_keys IS 'The signal keys present in the file (missing vs null stay apart).';
COMMENT ON COLUMN item_signals.llm_evidence_count IS 'Evidence quotes the LLM found.';
COMMENT ON COLUMN item_signals.keyword_evidence_count IS 'Evidence found by keywords.';
COMMENT ON COLUMN item_signals.evidence_source IS 'llm, keyword or both.';
COMMENT ON COLUMN item_signals.retrieval_reference_count IS 'Retrieved references.';
COMMENT ON COLUMN item_signals.retrieval_similarity_mean IS 'Mean similarity of the retrieved references.';
COMMENT ON COLUMN item_signals.retrieval_similarity_max IS 'Highest similarity of the retrieved references.';
COMMENT ON COLUMN item_signals.verbalized_confidence IS 'The model''s stated confidence.';
COMMENT ON COLUMN item_signals.token_msp IS 'Token maximum softmax probability.';
COMMENT ON COLUMN item_signals.token_pe IS 'Token predictive entropy.';
COMMENT ON COLUMN item_signals.token_energy IS 'Token energy score.';
COMMENT ON COLUMN item_signals.consistency_modal_confidence IS 'Share of resamples agreeing with the modal score.';
COMMENT ON COLUMN item_signals.consistency_score_std IS 'Standard deviation of resampled scores.';
COMMENT ON COLUMN item_signals.consistency_na_rate IS 'Share of resamples that abstained.';
COMMENT ON COLUMN item_signals.consistency_samples IS 'The resampled scores.';
COMMENT ON COLUMN item_signals.inference_used IS 'Whether the score was inferred.';
COMMENT ON COLUMN item_signals.inference_type IS 'How it was inferred.';
COMMENT ON COLUMN item_signals.inference_marker IS 'The inference marker text.';
COMMENT ON COLUMN item_signals.extra_signals IS 'Signals riskcov has no column for (JSON).';
COMMENT ON TABLE metrics IS 'Point metrics of every experiment x supported CSF x loss (default estimator, AURC@0.5): evaluate --bootstrap-resamples 0, filled at ingest. v_metrics reads it.';
COMMENT ON COLUMN metrics.run_id IS 'The run.';
COMMENT ON COLUMN metrics.run_timestamp IS 'The run''s timestamp (runs.timestamp).';
COMMENT ON COLUMN metrics.experiment_id IS 'The experiment.';
COMMENT ON COLUMN metrics.mode IS 'PHQ-8 mode.';
COMMENT ON COLUMN metrics.method IS 'Per-sample method.';
COMMENT ON COLUMN metrics.seed IS 'Per-sample seed.';
COMMENT ON COLUMN metrics.split IS 'Per-sample split.';
COMMENT ON COLUMN metrics.domain IS 'Per-sample domain.';
COMMENT ON COLUMN metrics.csf IS 'The confidence scoring function.';
COMMENT ON COLUMN metrics.loss IS 'abs, abs_norm (PHQ-8) or given (per-sample).';
COMMENT ON COLUMN metrics.cmax IS 'Highest coverage reached (1 unless units abstained).';
COMMENT ON COLUMN metrics.aurc_full IS 'Area under the risk-coverage curve over [0, Cmax].';
COMMENT ON COLUMN metrics.augrc_full IS 'Area under the generalized-risk curve.';
COMMENT ON COLUMN metrics.aurc_optimal IS 'AURC of the oracle ranking.';
COMMENT ON COLUMN metrics.augrc_optimal IS 'AUGRC of the oracle ranking.';
COMMENT ON COLUMN metrics.eaurc IS 'aurc_full - aurc_optimal.';
COMMENT ON COLUMN metrics.eaugrc IS 'augrc_full - augrc_optimal.';
COMMENT ON COLUMN metrics.area_coverage IS 'C of aurc_at_c / augrc_at_c (0.5).';
COMMENT ON COLUMN metrics.aurc_at_c IS 'AURC over [0, C].';
COMMENT ON COLUMN metrics.augrc_at_c IS 'AUGRC over [0, C].';
COMMENT ON COLUMN metrics.n_points IS 'Working points (plateaus) of the curve.';
COMMENT ON COLUMN metrics.aurc_optimal_population IS 'Continuous-coverage optimum (fd-shifts); NULL unless every loss is 0 or 1.';
COMMENT ON COLUMN metrics.eaurc_population IS 'aurc_full - aurc_optimal_population.';
COMMENT ON COLUMN metrics.prob_ece IS 'ECE of prob (10 bins; per-sample files with prob and 0/1 losses).';
COMMENT ON COLUMN metrics.prob_nll IS 'NLL of prob (clipped at 1e-6).';
COMMENT ON COLUMN metrics.prob_brier IS 'Brier score of prob.';
COMMENT ON TABLE rc_points IS 'RC working points of every experiment x supported CSF x loss (one per distinct confidence, most confident first), filled at ingest. v_rc_points reads it.';
COMMENT ON COLUMN rc_points.experiment_id IS 'The experiment.';
COMMENT ON COLUMN rc_points.csf IS 'The CSF.';
COMMENT ON COLUMN rc_points.loss IS 'The loss.';
COMMENT ON COLUMN rc_points.replicate IS '0 (the point estimate).';
COMMENT ON COLUMN rc_points.plateau IS '1 = most confident.';
COMMENT ON COLUMN rc_points.threshold IS 'The confidence of the plateau.';
COMMENT ON COLUMN rc_points.k_cum IS 'Covered units.';
COMMENT ON COLUMN rc_points.l_cum IS 'Sum of the covered units'' losses.';
COMMENT ON COLUMN rc_points.n_total IS 'All units.';
COMMENT ON COLUMN rc_points.k_total IS 'Predicted (not abstained) units.';
COMMENT ON COLUMN rc_points.coverage IS 'k_cum / n_total.';
COMMENT ON COLUMN rc_points.selective_risk IS 'l_cum / k_cum.';
COMMENT ON COLUMN rc_points.generalized_risk IS 'l_cum / n_total.';
COMMENT ON COLUMN rc_points.coverage_prev IS 'Coverage of the previous point.';
COMMENT ON COLUMN rc_points.selective_risk_prev IS 'Selective risk of the previous point.';
COMMENT ON COLUMN rc_points.generalized_risk_prev IS 'Generalized risk of the previous point.';
COMMENT ON COLUMN rc_points.coverage_last IS 'Cmax of the curve.';
COMMENT ON TABLE evaluations IS 'One row per riskcov evaluate run that was stored.';
COMMENT ON COLUMN evaluations.evaluation_id IS 'The evaluation''s id.';
COMMENT ON COLUMN evaluations.created_at IS 'When it ran (UTC).';
COMMENT ON COLUMN evaluations.inputs IS 'Its inputs (JSON).';
COMMENT ON COLUMN evaluations.options IS 'Its options (JSON).';
COMMENT ON COLUMN evaluations.artifact_path IS 'Where the artifact was written.';
COMMENT ON COLUMN evaluations.riskcov_version IS 'The riskcov that ran it.';
COMMENT ON TABLE evaluation_metrics IS 'Every number an evaluation reported, long format: one row per (evaluation, input, csf, metric).';
COMMENT ON COLUMN evaluation_metrics.evaluation_id IS 'The evaluation.';
COMMENT ON COLUMN evaluation_metrics.input IS 'input_0, input_1 or delta (right - left).';
COMMENT ON COLUMN evaluation_metrics.csf IS 'The CSF.';
COMMENT ON COLUMN evaluation_metrics.metric IS 'The full metric key, parameter included (mae_at_coverage_0.10).';
COMMENT ON COLUMN evaluation_metrics.value IS 'The point estimate.';
COMMENT ON COLUMN evaluation_metrics.ci_low IS 'Lower bound of the 95 % bootstrap CI.';
COMMENT ON COLUMN evaluation_metrics.ci_high IS 'Upper bound of the 95 % bootstrap CI.';
COMMENT ON COLUMN evaluation_metrics.run_id IS 'The input''s run (NULL for delta).';
COMMENT ON COLUMN evaluation_metrics.experiment_id IS 'The input''s experiment (NULL for delta).';
COMMENT ON COLUMN evaluation_metrics.mode IS 'The input''s PHQ-8 mode (NULL for delta and per-sample inputs).';
COMMENT ON COLUMN evaluation_metrics.loss IS 'The evaluation''s loss.';
COMMENT ON COLUMN evaluation_metrics.metric_base IS 'The metric without its parameter (mae_at_coverage, coverage_at_risk, aurc_at_c, aurc_full, ...).';
COMMENT ON COLUMN evaluation_metrics.at_value IS 'The metric''s parameter: the coverage, the alpha, or C; NULL for a metric without one.';
COMMENT ON TABLE evaluation_curves IS 'The RC curve of each (evaluation, input, csf), one row per working point.';
COMMENT ON COLUMN evaluation_curves.evaluation_id IS 'The evaluation.';
COMMENT ON COLUMN evaluation_curves.input IS 'input_0 or input_1.';
COMMENT ON COLUMN evaluation_curves.csf IS 'The CSF.';
COMMENT ON COLUMN evaluation_curves.point IS '1-based point number.';
COMMENT ON COLUMN evaluation_curves.coverage IS 'Coverage.';
COMMENT ON COLUMN evaluation_curves.selective_risk IS 'Selective risk.';
COMMENT ON COLUMN evaluation_curves.generalized_risk IS 'Generalized risk.';
COMMENT ON COLUMN evaluation_curves.threshold IS 'Confidence threshold.';
COMMENT ON TABLE calibrators IS 'Every calibrator fitted by riskcov calibrate.';
COMMENT ON COLUMN calibrators.calibrator_id IS 'The calibrator''s id (evaluate --calibration ID).';
COMMENT ON COLUMN calibrators.method IS 'temperature, platt, logistic or isotonic.';
COMMENT ON COLUMN calibrators.sha256 IS 'sha256 of the artifact text.';
COMMENT ON COLUMN calibrators.artifact IS 'The calibrator file as written (JSON).';
COMMENT ON COLUMN calibrators.created_at IS 'When it was fitted (UTC).';
COMMENT ON TABLE user_csfs IS 'Your own CSFs (riskcov csf add): named SQL expressions over item_signals.';
COMMENT ON COLUMN user_csfs.name IS 'The CSF''s name.';
COMMENT ON COLUMN user_csfs.expression IS 'The expression as given (checked against an allow-list).';
COMMENT ON COLUMN user_csfs.created_at IS 'When it was added (UTC).';
COMMENT ON TABLE command_runs IS 'One row per risk-control / ood / compare command that stored results.';
COMMENT ON COLUMN command_runs.command_id IS 'The command''s id.';
COMMENT ON COLUMN command_runs.command IS 'risk-control, ood or compare.';
COMMENT ON COLUMN command_runs.created_at IS 'When it ran (UTC).';
COMMENT ON COLUMN command_runs.inputs IS 'Its input run_ids (JSON).';
COMMENT ON COLUMN command_runs.options IS 'Every flag (JSON).';
COMMENT ON COLUMN command_runs.riskcov_version IS 'The riskcov that ran it.';
COMMENT ON TABLE risk_control_results IS 'risk-control: one row per command x method x seed x rule x alpha.';
COMMENT ON COLUMN risk_control_results.command_id IS 'The command.';
COMMENT ON COLUMN risk_control_results.method IS 'The method.';
COMMENT ON COLUMN risk_control_results.seed IS 'The seed.';
COMMENT ON COLUMN risk_control_results.rule IS 'certified, uncertified or crc.';
COMMENT ON COLUMN risk_control_results.alpha IS 'The risk budget.';
COMMENT ON COLUMN risk_control_results.csf IS 'The CSF.';
COMMENT ON COLUMN risk_control_results.cal_experiment_id IS 'The calibration experiment.';
COMMENT ON COLUMN risk_control_results.test_experiment_id IS 'The test experiment.';
COMMENT ON COLUMN risk_control_results.threshold IS 'The fitted threshold (NULL: accept nothing).';
COMMENT ON COLUMN risk_control_results.cal_coverage IS 'Coverage on cal.';
COMMENT ON COLUMN risk_control_results.cal_risk IS 'Risk on cal.';
COMMENT ON COLUMN risk_control_results.coverage IS 'Coverage on test.';
COMMENT ON COLUMN risk_control_results.risk IS 'Selective risk on test.';
COMMENT ON COLUMN risk_control_results.generalized_risk IS 'Generalized risk on test.';
COMMENT ON COLUMN risk_control_results.accepted IS 'Test samples accepted.';
COMMENT ON COLUMN risk_control_results.violated IS 'Test risk above alpha.';
COMMENT ON COLUMN risk_control_results.violated_margin IS 'Test risk above alpha + margin (NULL without a margin).';
COMMENT ON TABLE ood_results IS 'ood: one row per command x method x seed x kind x target.';
COMMENT ON COLUMN ood_results.command_id IS 'The command.';
COMMENT ON COLUMN ood_results.method IS 'The method.';
COMMENT ON COLUMN ood_results.seed IS 'The seed.';
COMMENT ON COLUMN ood_results.split IS 'The split.';
COMMENT ON COLUMN ood_results.csf IS 'The CSF.';
COMMENT ON COLUMN ood_results.id_experiment_id IS 'The in-distribution experiment.';
COMMENT ON COLUMN ood_results.ood_experiment_id IS 'The out-of-distribution experiment.';
COMMENT ON COLUMN ood_results.kind IS 'id_coverage or threshold.';
COMMENT ON COLUMN ood_results.target IS 'The ID coverage target or the threshold.';
COMMENT ON COLUMN ood_results.id_coverage_target IS 'The ID coverage asked for.';
COMMENT ON COLUMN ood_results.threshold IS 'The threshold.';
COMMENT ON COLUMN ood_results.id_coverage_actual IS 'ID acceptance there.';
COMMENT ON COLUMN ood_results.ood_accept_rate IS 'OOD acceptance there.';
COMMENT ON COLUMN ood_results.dar IS 'Distribution acceptance ratio.';
COMMENT ON COLUMN ood_results.safety_ratio IS 'Safety ratio.';
COMMENT ON COLUMN ood_results.auroc IS 'AUROC (ID positive).';
COMMENT ON COLUMN ood_results.fpr_at_95_tpr IS 'FPR at 95 % TPR.';
COMMENT ON TABLE schema_migrations IS 'Bookkeeping: the migrations applied to this warehouse.';
COMMENT ON COLUMN schema_migrations.version IS 'Migration number.';
COMMENT ON COLUMN schema_migrations.name IS 'Migration name.';
COMMENT ON COLUMN schema_migrations.sha256 IS 'sha256 of the migration file.';
COMMENT ON COLUMN schema_migrations.applied_at IS 'When it was applied (UTC).';
COMMENT ON TABLE warehouse_meta IS 'Bookkeeping: versions, installed SQL digest, publish stamps.';
COMMENT ON COLUMN warehouse_meta.key IS 'The entry.';
COMMENT ON COLUMN warehouse_meta.value IS 'Its value.';
COMMENT ON COLUMN warehouse_meta.updated_at IS 'When it was set (UTC).';
