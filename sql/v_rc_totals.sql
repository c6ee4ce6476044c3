-- Items (N) and predicted items (K) of every experiment x supported CSF x loss.
CREATE OR REPLACE VIEW v_rc_totals AS
FROM rc_totals('v_scored', 'v_unit_samples');
