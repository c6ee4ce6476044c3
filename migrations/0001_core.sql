-- The warehouse core: one row per ingested run file, its experiments, participants, items
-- and per-item signals. Table and column names are public: SQL users and BI tools rely on them.

CREATE TABLE warehouse_meta (
    key VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

CREATE SEQUENCE experiment_id_seq START 1;

CREATE TABLE runs (
    run_id VARCHAR PRIMARY KEY,
    source_path VARCHAR NOT NULL,
    sha256 VARCHAR NOT NULL UNIQUE,
    ingested_at TIMESTAMP NOT NULL,
    git_commit VARCHAR,
    "timestamp" VARCHAR,
    run_metadata JSON NOT NULL,
    input_format VARCHAR NOT NULL,
    riskcov_version VARCHAR NOT NULL
);

-- The item set and score range are data of the experiment (PHQ-8: 8 items scored 0..3),
-- so other questionnaires need no schema change.
CREATE TABLE experiments (
    experiment_id INTEGER PRIMARY KEY,
    run_id VARCHAR NOT NULL,
    experiment_index INTEGER NOT NULL,
    mode VARCHAR,
    provenance JSON,
    item_names VARCHAR[] NOT NULL,
    score_min INTEGER NOT NULL,
    score_max INTEGER NOT NULL CHECK (score_max > score_min),
    UNIQUE (run_id, experiment_index)
);

CREATE TABLE participants (
    experiment_id INTEGER NOT NULL,
    participant_id BIGINT NOT NULL,
    success BOOLEAN NOT NULL,
    error VARCHAR,
    has_signals BOOLEAN NOT NULL,
    PRIMARY KEY (experiment_id, participant_id)
);

CREATE TABLE items (
    experiment_id INTEGER NOT NULL,
    participant_id BIGINT NOT NULL,
    item_index SMALLINT NOT NULL CHECK (item_index >= 0),
    item_name VARCHAR NOT NULL,
    pred SMALLINT,
    gt SMALLINT NOT NULL,
    PRIMARY KEY (experiment_id, participant_id, item_index)
);

-- signal_keys lists the keys present in the item's JSON object, so "missing" (key absent)
-- and "null" (key present, value null) stay distinguishable.
CREATE TABLE item_signals (
    experiment_id INTEGER NOT NULL,
    participant_id BIGINT NOT NULL,
    item_index SMALLINT NOT NULL,
    signal_keys VARCHAR[] NOT NULL,
    llm_evidence_count BIGINT,
    keyword_evidence_count BIGINT,
    evidence_source VARCHAR CHECK (evidence_source IN ('llm', 'keyword', 'both')),
    retrieval_reference_count BIGINT,
    retrieval_similarity_mean DOUBLE,
    retrieval_similarity_max DOUBLE,
    verbalized_confidence DOUBLE,
    token_msp DOUBLE,
    token_pe DOUBLE,
    token_energy DOUBLE,
    consistency_modal_confidence DOUBLE,
    consistency_score_std DOUBLE,
    consistency_na_rate DOUBLE,
    consistency_samples DOUBLE[],
    inference_used BOOLEAN,
    inference_type VARCHAR,
    inference_marker VARCHAR,
    extra_signals JSON,
    PRIMARY KEY (experiment_id, participant_id, item_index)
);
