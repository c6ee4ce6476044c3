-- RC working points of every experiment x supported CSF x loss in the warehouse: the table
-- `rc_points` (filled at ingest by the rc_points macro), with the `series` struct the rc_*
-- macros read.
CREATE OR REPLACE VIEW v_rc_points AS
SELECT experiment_id, csf, loss,
       {'experiment_id': experiment_id, 'csf': csf, 'loss': loss} AS series,
       * EXCLUDE (experiment_id, csf, loss)
FROM rc_points;
-- the view's description, for BI tools
COMMENT ON VIEW v_rc_points IS 'RC working points of every experiment x supported CSF x loss: the table rc_points with its series struct.';
