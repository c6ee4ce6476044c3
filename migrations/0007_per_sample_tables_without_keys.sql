-- Per-sample tables without their primary keys. Keeping the ART indexes of 0003's keys up to
-- date cost more than the rest of an ingest (5 M samples x 3 scores: ~20 of ~38 CPU-s, plus
-- 2-3 GB of index at commit), and no query uses them: DuckDB plans joins and filters on these
-- tables with hash joins and zone maps. The keys still hold, by construction: the per-sample
-- ingest refuses a repeated (experiment, sample_id) naming its row, and gives every sample one
-- sample_index and one score row per CSF. DuckDB cannot drop a constraint, so both tables are
-- rebuilt with their rows in storage order; the CHECKs stay.

CREATE TABLE samples_0007 (
    experiment_id INTEGER NOT NULL,
    sample_index BIGINT NOT NULL,
    sample_id VARCHAR NOT NULL,
    cluster VARCHAR NOT NULL,
    cluster_int BIGINT,
    abstained BOOLEAN NOT NULL,
    loss DOUBLE NOT NULL CHECK (loss >= 0),
    label VARCHAR,
    prediction VARCHAR,
    prob DOUBLE CHECK (prob BETWEEN 0 AND 1)
);
INSERT INTO samples_0007 SELECT * FROM samples ORDER BY experiment_id, sample_index;
DROP TABLE samples;
ALTER TABLE samples_0007 RENAME TO samples;

CREATE TABLE sample_scores_0007 (
    experiment_id INTEGER NOT NULL,
    sample_index BIGINT NOT NULL,
    csf VARCHAR NOT NULL,
    confidence DOUBLE
);
INSERT INTO sample_scores_0007 SELECT * FROM sample_scores ORDER BY experiment_id, csf, sample_index;
DROP TABLE sample_scores;
ALTER TABLE sample_scores_0007 RENAME TO sample_scores;

-- the descriptions of the rebuilt tables (0006 describes every other table)
COMMENT ON TABLE samples IS 'One row per sample of a per-sample experiment (SPEC section 9).';
COMMENT ON COLUMN samples.experiment_id IS 'The experiment.';
COMMENT ON COLUMN samples.sample_index IS 'Position in the file.';
COMMENT ON COLUMN samples.sample_id IS 'The sample''s id.';
COMMENT ON COLUMN samples.cluster IS 'The bootstrap unit (default: the sample).';
COMMENT ON COLUMN samples.cluster_int IS 'The cluster as an integer, when it is one.';
COMMENT ON COLUMN samples.abstained IS 'Whether the model abstained.';
COMMENT ON COLUMN samples.loss IS 'The sample''s loss as given (>= 0; not counted when abstained).';
COMMENT ON COLUMN samples.label IS 'The label, when given.';
COMMENT ON COLUMN samples.prediction IS 'The prediction, when given.';
COMMENT ON COLUMN samples.prob IS 'The predicted probability, when given.';
COMMENT ON TABLE sample_scores IS 'One row per sample and score column of a per-sample experiment.';
COMMENT ON COLUMN sample_scores.experiment_id IS 'The experiment.';
COMMENT ON COLUMN sample_scores.sample_index IS 'The sample (samples.sample_index).';
COMMENT ON COLUMN sample_scores.csf IS 'The CSF: confidence, or <name> for a column confidence_<name>.';
COMMENT ON COLUMN sample_scores.confidence IS 'The score; NULL when abstained.';
