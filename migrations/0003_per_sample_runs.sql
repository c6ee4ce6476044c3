-- Per-sample runs (SPEC §9): experiments say which losses apply and, for per-sample tables,
-- which (method, seed, split, domain) they are; samples and their scores get tables of their
-- own. PHQ-8 experiments keep their items; per-sample experiments have no item set or score
-- range, so those columns become nullable.

ALTER TABLE experiments ADD COLUMN loss_kind VARCHAR DEFAULT 'abs_error';
UPDATE experiments SET loss_kind = 'abs_error';
ALTER TABLE experiments ADD COLUMN method VARCHAR;
ALTER TABLE experiments ADD COLUMN seed BIGINT;
ALTER TABLE experiments ADD COLUMN split VARCHAR;
ALTER TABLE experiments ADD COLUMN domain VARCHAR;
ALTER TABLE experiments ALTER COLUMN item_names DROP NOT NULL;
ALTER TABLE experiments ALTER COLUMN score_min DROP NOT NULL;
ALTER TABLE experiments ALTER COLUMN score_max DROP NOT NULL;

-- One row per sample. cluster is the bootstrap unit as written in the file (default: the
-- sample id); cluster_int its value when the file's ids are integers (NULL for text ids), so
-- clusters sort numerically where they are numbers (SPEC §5's sorted order). sample_index is
-- the sample's position in its experiment (file order).
CREATE TABLE samples (
    experiment_id INTEGER NOT NULL,
    sample_index BIGINT NOT NULL,
    sample_id VARCHAR NOT NULL,
    cluster VARCHAR NOT NULL,
    cluster_int BIGINT,
    abstained BOOLEAN NOT NULL,
    loss DOUBLE NOT NULL CHECK (loss >= 0),
    label VARCHAR,
    prediction VARCHAR,
    prob DOUBLE CHECK (prob BETWEEN 0 AND 1),
    PRIMARY KEY (experiment_id, sample_id)
);

-- One row per sample and score column: confidence_<name> is CSF <name>, `confidence` is CSF
-- `confidence`; NULL only for an abstained sample.
CREATE TABLE sample_scores (
    experiment_id INTEGER NOT NULL,
    sample_index BIGINT NOT NULL,
    csf VARCHAR NOT NULL,
    confidence DOUBLE,
    PRIMARY KEY (experiment_id, csf, sample_index)
);
