-- Contract: in the BI snapshot, v_rc_points has the warehouse view's columns (series included)
-- and rows but reads the materialised table `rc_points`.
CREATE OR REPLACE VIEW v_rc_points AS
SELECT experiment_id, csf, loss,
       {'experiment_id': experiment_id, 'csf': csf, 'loss': loss} AS series,
       * EXCLUDE (experiment_id, csf, loss)
FROM rc_points
