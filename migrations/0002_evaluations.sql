-- Stored evaluations, so SQL and BI users can query every metric ever reported.

CREATE SEQUENCE evaluation_id_seq START 1;

CREATE TABLE evaluations (
    evaluation_id INTEGER PRIMARY KEY,
    created_at TIMESTAMP NOT NULL,
    inputs JSON NOT NULL,
    options JSON NOT NULL,
    artifact_path VARCHAR,
    riskcov_version VARCHAR NOT NULL
);

-- Long format: one row per (evaluation, input, csf, metric). input is input_0, input_1 or
-- delta (right - left); metric names: cmax, aurc_full, mae_at_coverage_0.10, ...
CREATE TABLE evaluation_metrics (
    evaluation_id INTEGER NOT NULL,
    input VARCHAR NOT NULL,
    csf VARCHAR NOT NULL,
    metric VARCHAR NOT NULL,
    value DOUBLE,
    ci_low DOUBLE,
    ci_high DOUBLE,
    PRIMARY KEY (evaluation_id, input, csf, metric)
);

CREATE TABLE evaluation_curves (
    evaluation_id INTEGER NOT NULL,
    input VARCHAR NOT NULL,
    csf VARCHAR NOT NULL,
    point INTEGER NOT NULL,
    coverage DOUBLE NOT NULL,
    selective_risk DOUBLE NOT NULL,
    generalized_risk DOUBLE NOT NULL,
    threshold DOUBLE,
    PRIMARY KEY (evaluation_id, input, csf, point)
);
