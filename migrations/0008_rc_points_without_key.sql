-- rc_points without its primary key. Keeping the ART index of 0006's key up to date cost a
-- third of a large ingest's metric tables (the 5 M-row per-sample file, ~4 M working points:
-- inserting 2.2 s with the index, 1.1 s without; COMMIT 1.1 s against 0.05 s), and no query
-- needs it: v_rc_points and BI tools scan the table (each refresh's points are stored
-- together, round by round of CSFs, so zone maps still narrow a scan). The key still holds by
-- construction:
-- materialise writes one point per (experiment, CSF, loss, replicate 0, plateau) and deletes an
-- experiment's points before it writes them again. DuckDB cannot drop a constraint, so the
-- table is rebuilt with its rows in storage order (insertion order is preserved).

CREATE TABLE rc_points_0008 (
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
    coverage_last DOUBLE
);
INSERT INTO rc_points_0008 SELECT * FROM rc_points;
DROP TABLE rc_points;
ALTER TABLE rc_points_0008 RENAME TO rc_points;

-- the descriptions of the rebuilt table (as 0006 gave them)
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
