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
DELETE FROM warehouse_meta WHERE key = 'sql_objects_sha256';
