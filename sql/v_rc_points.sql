-- RC working points of every experiment x supported CSF x loss in the warehouse.
CREATE OR REPLACE VIEW v_rc_points AS
SELECT series.experiment_id AS experiment_id, series.csf AS csf, series.loss AS loss, *
FROM rc_points('v_scored', 'v_unit_samples', 'v_rc_totals');
