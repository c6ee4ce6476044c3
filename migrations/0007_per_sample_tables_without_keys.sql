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
