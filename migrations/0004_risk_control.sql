-- Seed 004's suite (SPEC §10): every `risk-control` and `ood` command run and its rows, so SQL
-- and BI users can follow violation rates and OOD acceptance over time. A command's rows and
-- its command_runs row are written in one transaction.

CREATE SEQUENCE command_run_id_seq START 1;

-- One row per command run: the command name, its inputs (run_ids), its options (the flags, as
-- JSON: alphas, delta, bound, procedure, candidates, splits, margin, confidence, targets...).
CREATE TABLE command_runs (
    command_id INTEGER PRIMARY KEY,
    command VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL,
    inputs JSON NOT NULL,
    options JSON NOT NULL,
    riskcov_version VARCHAR NOT NULL
);

-- One row per (command, method, seed, rule, alpha): the threshold a rule picked on the cal
-- split (NULL: accept nothing) and what it gives on the test split. rule is certified,
-- uncertified or crc; violated compares the test risk (crc: the generalized risk) with alpha,
-- violated_margin with alpha * (1 + margin) (NULL without --violation-margin).
CREATE TABLE risk_control_results (
    command_id INTEGER NOT NULL,
    method VARCHAR NOT NULL,
    seed BIGINT NOT NULL,
    rule VARCHAR NOT NULL,
    alpha DOUBLE NOT NULL,
    csf VARCHAR NOT NULL,
    cal_experiment_id INTEGER NOT NULL,
    test_experiment_id INTEGER NOT NULL,
    threshold DOUBLE,
    cal_coverage DOUBLE NOT NULL,
    cal_risk DOUBLE NOT NULL,
    coverage DOUBLE NOT NULL,
    risk DOUBLE NOT NULL,
    generalized_risk DOUBLE NOT NULL,
    accepted BIGINT NOT NULL,
    violated BOOLEAN NOT NULL,
    violated_margin BOOLEAN,
    PRIMARY KEY (command_id, method, seed, rule, alpha)
);

-- One row per (command, method, seed, kind, target): kind 'id_coverage' is OOD acceptance at
-- a fixed ID coverage (target = id_coverage_target, threshold = the ID quantile), kind
-- 'threshold' is DAR at a given threshold (target = that threshold; id_coverage_actual is the
-- ID acceptance there; no safety_ratio). Column names are the seed's own. auroc and
-- fpr_at_95_tpr (ID positive) repeat on every row of a (method, seed).
CREATE TABLE ood_results (
    command_id INTEGER NOT NULL,
    method VARCHAR NOT NULL,
    seed BIGINT NOT NULL,
    split VARCHAR NOT NULL,
    csf VARCHAR NOT NULL,
    id_experiment_id INTEGER NOT NULL,
    ood_experiment_id INTEGER NOT NULL,
    kind VARCHAR NOT NULL CHECK (kind IN ('id_coverage', 'threshold')),
    target DOUBLE NOT NULL,
    id_coverage_target DOUBLE,
    threshold DOUBLE,
    id_coverage_actual DOUBLE NOT NULL,
    ood_accept_rate DOUBLE NOT NULL,
    dar DOUBLE NOT NULL,
    safety_ratio DOUBLE,
    auroc DOUBLE,
    fpr_at_95_tpr DOUBLE NOT NULL,
    PRIMARY KEY (command_id, method, seed, kind, target)
);
