-- Harmonic numbers up to the largest item count of any experiment (for v_metrics' oracle).
CREATE OR REPLACE VIEW v_harmonic AS
FROM rc_harmonic((SELECT coalesce(max(n_total), 0) FROM v_rc_totals));
