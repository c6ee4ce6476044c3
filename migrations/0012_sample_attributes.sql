-- Per-sample attributes (docs/formats.md): every column of a per-sample file that riskcov does
-- not read itself (site, subpopulation, class, ...), one row per sample and attribute, its
-- value as text (NULL where the file left it empty). `evaluate --group NAME` groups samples by
-- one of them (docs/metrics-extended.md). Deleted with its run, like samples.
CREATE TABLE sample_attributes (
    experiment_id INTEGER NOT NULL,
    sample_index BIGINT NOT NULL,
    name VARCHAR NOT NULL,
    value VARCHAR
);
COMMENT ON TABLE sample_attributes IS 'The extra columns of a per-sample file: one row per sample and attribute.';
COMMENT ON COLUMN sample_attributes.experiment_id IS 'The experiment.';
COMMENT ON COLUMN sample_attributes.sample_index IS 'The sample''s position in its experiment (samples.sample_index).';
COMMENT ON COLUMN sample_attributes.name IS 'The column''s name in the file.';
COMMENT ON COLUMN sample_attributes.value IS 'Its value as text (numbers and booleans as the file wrote them); NULL when empty.';
